package bench

// ListWorkloadsWithEveryKey are the list workloads of a database that had a row for every
// key the bench knows: every filter of hotKeyQueries and listKeyQueries, the NFT with the
// most events, a transfer deep down every keyset list.
func ListWorkloadsWithEveryKey() ([]Workload, error) {
	d := listData{keys: map[string]HotKey{}, nftToken: "7", transferIDs: map[string]string{"": "9_1_2"}}
	i := 0
	add := func(filter string) {
		i++
		key := make([]byte, 32)
		key[31], key[30] = byte(i), 0x10
		d.keys[filter] = HotKey{Filter: filter, Key: key, Rows: int64(1000 * i)}
		d.transferIDs[filter] = "9_1_2"
	}
	for _, q := range hotKeyQueries {
		add(q.filter)
	}
	for _, q := range listKeyQueries {
		add(q.filter)
	}
	add("NFT events by token")
	d.keys["transactions by type"] = HotKey{Filter: "transactions by type", Key: []byte("INVOKE"), Rows: 5}
	return listWorkloads(d)
}

// NoDeepPage are the list routes without a page after their first.
var NoDeepPage = restNoDeepPage

// KeyRequired are the list routes that answer only by a key though they declare none
// required.
var KeyRequired = restKeyRequired
