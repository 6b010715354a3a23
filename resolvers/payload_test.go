package resolvers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/loaders"
)

// Lists read transactions with only what list items show (no payload, nonce, fees asked
// for, selector, L1 hash...); asked for, the whole rows of a page come in one more
// statement, and are the same as a lookup of each transaction by hash returns.
func TestListedTransactionsPayload(t *testing.T) {
	s := newGQLServer(t)
	for b := range 3 {
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES ($1, $2, $3, 100, 'ACCEPTED_ON_L2')`,
			b, db.FeltFromUint64(uint64(0xb0+b)), db.FeltFromUint64(uint64(0xaf+b)))
		for i := range 4 {
			n := uint64(10*b + i)
			calldata := db.FeltArray{db.FeltFromUint64(n), db.FeltFromUint64(n + 1), db.FeltFromUint64(0xca11)}
			signature := db.FeltArray{db.FeltFromUint64(0x5160 + n)}
			var ctor any // DEPLOY_ACCOUNT carries constructor calldata, the others none
			typ := "INVOKE"
			if i == 3 {
				typ, ctor = "DEPLOY_ACCOUNT", db.FeltArray{db.FeltFromUint64(0xc7 + n)}
			}
			s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, actual_fee, actual_fee_unit,
				execution_status, finality_status, calldata, signature, constructor_calldata, nonce, max_fee,
				entry_point_selector, l1_transaction_hash, partial_calls_parsing)
				VALUES ($1, $2, $3, $4, 3, 100, 1, 'FRI', 'SUCCEEDED', 'ACCEPTED_ON_L2', $5, $6, $7, $8, 12345678901234567890,
				'\x15d40a3d', $3, $2 = 1)`,
				b, i, db.FeltFromUint64(0x7000+n), typ, calldata, signature, ctor, n)
		}
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('blocks', 3), ('transactions', 12)`)

	type tx struct {
		Hash                string   `json:"hash"`
		Calldata            []string `json:"calldata"`
		Signature           []string `json:"signature"`
		ConstructorCalldata []string `json:"constructorCalldata"`
		Nonce               *string  `json:"nonce"`
		MaxFee              *string  `json:"maxFee"`
		EntryPointSelector  *string  `json:"entryPointSelector"`
		L1TransactionHash   *string  `json:"l1TransactionHash"`
		PartialCallsParsing bool     `json:"partialCallsParsing"`
	}
	const fields = `hash calldata signature constructorCalldata nonce maxFee entryPointSelector l1TransactionHash
		partialCallsParsing`
	var list struct {
		Transactions struct{ Edges []struct{ Node tx } }
	}
	before := s.store.Statements()
	s.mustQuery(`{ transactions(first: 12) { edges { node { `+fields+` } } } }`, nil, &list)
	if n := s.store.Statements() - before; n != 2 {
		t.Errorf("12 transactions with their payload took %d statements, want 2 (the page, the payloads; no total)", n)
	}
	if len(list.Transactions.Edges) != 12 {
		t.Fatalf("%d transactions listed, want 12", len(list.Transactions.Edges))
	}
	var nested struct {
		Blocks struct {
			Edges []struct {
				Node struct {
					Transactions struct{ Edges []struct{ Node tx } }
				}
			}
		}
	}
	s.mustQuery(`{ blocks(first: 3) { edges { node { transactions(first: 4) { edges { node { `+fields+` } } } } } } }`, nil, &nested)
	inBlocks := map[string]string{}
	for _, b := range nested.Blocks.Edges {
		for _, e := range b.Node.Transactions.Edges {
			inBlocks[e.Node.Hash] = show(e.Node)
		}
	}
	for _, e := range list.Transactions.Edges {
		var one struct{ Transaction tx }
		s.mustQuery(`query($h: Felt!) { transaction(hash: $h) { `+fields+` } }`, map[string]any{"h": e.Node.Hash}, &one)
		if show(one.Transaction) != show(e.Node) || inBlocks[e.Node.Hash] != show(e.Node) {
			t.Errorf("payload differs: listed %v, in its block %v, by hash %v", e.Node, inBlocks[e.Node.Hash], one.Transaction)
		}
		if len(e.Node.Calldata) != 3 || len(e.Node.Signature) != 1 || e.Node.Nonce == nil || e.Node.MaxFee == nil ||
			e.Node.EntryPointSelector == nil || e.Node.L1TransactionHash == nil {
			t.Errorf("listed %s without its details: %+v", e.Node.Hash, e.Node)
		}
	}
}

// Lists read blocks without their details (parent, sequencer, version, gas prices); asked
// for, the details of a whole page come in one more statement, and are the same as a
// lookup of each block by number returns.
func TestListedBlocksDetails(t *testing.T) {
	s := newGQLServer(t)
	for b := range 4 {
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status, sequencer_address, starknet_version,
			l1_da_mode, l1_gas_price_wei, l1_gas_price_fri, l1_data_gas_price_wei, l1_data_gas_price_fri,
			l2_gas_price_wei, l2_gas_price_fri)
			VALUES ($1::bigint, $2, $3, 100, 'ACCEPTED_ON_L2', $4, '0.13.'||$1, 'BLOB', 1000000000000 + $1::bigint, 2 * $1::bigint, 3, 40000000000000000000 + $1::bigint, 5, 6)`,
			b, db.FeltFromUint64(uint64(0xb0+b)), db.FeltFromUint64(uint64(0xaf+b)), db.FeltFromUint64(uint64(0x5e0+b)))
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('blocks', 4)`)

	const summary = `number hash timestamp txnCount`
	const details = `parentHash sequencerAddress starknetVersion l1DaMode l1GasPriceWei l1GasPriceFri
		l1DataGasPriceWei l1DataGasPriceFri l2GasPriceWei l2GasPriceFri`
	type page struct {
		Blocks struct {
			Edges []struct{ Node map[string]any }
		}
	}
	var short page
	before := s.store.Statements()
	s.mustQuery(`{ blocks(first: 4) { edges { node { `+summary+` } } } }`, nil, &short)
	if n := s.store.Statements() - before; n != 1 {
		t.Errorf("4 blocks without details took %d statements, want 1", n)
	}
	var long page
	before = s.store.Statements()
	s.mustQuery(`{ blocks(first: 4) { edges { node { `+summary+` `+details+` } } } }`, nil, &long)
	if n := s.store.Statements() - before; n != 2 {
		t.Errorf("4 blocks with their details took %d statements, want 2 (the page, the details)", n)
	}
	if len(long.Blocks.Edges) != 4 {
		t.Fatalf("%d blocks listed, want 4", len(long.Blocks.Edges))
	}
	for _, e := range long.Blocks.Edges {
		var one struct{ Block map[string]any }
		s.mustQuery(`query($n: Int!) { block(number: $n) { `+summary+` `+details+` } }`, map[string]any{"n": e.Node["number"]}, &one)
		if fmt.Sprint(one.Block) != fmt.Sprint(e.Node) {
			t.Errorf("details differ: listed %v, by number %v", e.Node, one.Block)
		}
		if e.Node["l1DataGasPriceFri"] == nil || e.Node["starknetVersion"] == "" {
			t.Errorf("block %v listed without its details", e.Node["number"])
		}
	}
}

// show renders v as JSON, to compare answers field by field (pointers included).
func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A transaction's three aliases (sender, contract, class) come in one statement for the
// whole page, whichever of them the items show, and name the right addresses.
func TestTransactionAliasesInOneStatement(t *testing.T) {
	s := newGQLServer(t)
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (1, '\xb1', '\xb0', 100, 'ACCEPTED_ON_L2')`)
	// An INVOKE names a sender; a DEPLOY_ACCOUNT a contract and a class; a DECLARE a
	// sender and a class.
	s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, actual_fee, actual_fee_unit,
		execution_status, finality_status, sender_id, contract_id, class_id) VALUES
		(1, 0, '\x70', 'INVOKE', 3, 100, 1, 'FRI', 'SUCCEEDED', 'ACCEPTED_ON_L2', felt_id('\x5e'), NULL, NULL),
		(1, 1, '\x71', 'DEPLOY_ACCOUNT', 3, 100, 1, 'FRI', 'SUCCEEDED', 'ACCEPTED_ON_L2', NULL, felt_id('\xc0'), felt_id('\xc1')),
		(1, 2, '\x72', 'DECLARE', 3, 100, 1, 'FRI', 'SUCCEEDED', 'ACCEPTED_ON_L2', felt_id('\x5e'), NULL, felt_id('\xc2'))`)
	s.exec(`INSERT INTO aliases (address, name) VALUES ('\x5e', 'Sender'), ('\xc0', 'Account'), ('\xc1', 'AccountClass'), ('\xc2', 'Declared')`)
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('transactions', 3)`)

	var out struct {
		Transactions connection[struct {
			Hash                                   string
			SenderAlias, ContractAlias, ClassAlias *string
		}]
	}
	// The felts of the page's ids are read once and then kept (db.Store.feltsOf): they
	// are not counted.
	var ran []string
	s.store.OnQuery = func(q string, _ []any) {
		if !strings.Contains(q, "FROM felt_ids WHERE id = ANY") {
			ran = append(ran, q)
		}
	}
	s.mustQuery(`{ transactions(first: 3) { edges { node { hash senderAlias contractAlias classAlias } } } }`, nil, &out)
	s.store.OnQuery = nil
	if len(ran) != 2 {
		t.Errorf("3 transactions with their aliases took %d statements, want 2 (the page, the aliases):\n%s", len(ran), strings.Join(ran, "\n"))
	}
	got := map[string]string{}
	for _, e := range out.Transactions.Edges {
		got[e.Node.Hash] = show([]*string{e.Node.SenderAlias, e.Node.ContractAlias, e.Node.ClassAlias})
	}
	want := map[string]string{
		"0x72": `["Sender",null,"Declared"]`,
		"0x71": `[null,"Account","AccountClass"]`,
		"0x70": `["Sender",null,null]`,
	}
	if show(got) != show(want) {
		t.Errorf("aliases %v, want %v", got, want)
	}
}

// blocksWithAMinuteBatchWindow serves blocks 0-2 (hash 0xb0 + number), each with two
// transactions (hash 0x7000 + 10 * block + index), with loaders that wait a minute for
// siblings (until the test ends): a load that waits shows as a document that takes that long.
func blocksWithAMinuteBatchWindow(t *testing.T) *gqlServer {
	saved := loaders.BatchWait
	t.Cleanup(func() { loaders.BatchWait = saved })
	loaders.BatchWait = time.Minute
	s := newGQLServer(t)
	for b := range 3 {
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES ($1, $2, $3, 100, 'ACCEPTED_ON_L2')`,
			b, db.FeltFromUint64(uint64(0xb0+b)), db.FeltFromUint64(uint64(0xaf+b)))
		for i := range 2 {
			s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, actual_fee, actual_fee_unit,
				execution_status, finality_status) VALUES ($1, $2, $3, 'INVOKE', 3, 100, 1, 'FRI', 'SUCCEEDED', 'ACCEPTED_ON_L2')`,
				b, i, db.FeltFromUint64(uint64(0x7000+10*b+i)))
		}
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('blocks', 3), ('transactions', 6)`)
	return s
}

// A field no sibling can join (reached through no list, and no field on its path has an
// alias of its name) loads at once: with a batch window of a minute, a block and its
// transactions still answer at once. Two aliases of one field still share a statement.
func TestASoleFieldDoesNotWaitForTheBatchWindow(t *testing.T) {
	s := blocksWithAMinuteBatchWindow(t)

	var one struct {
		Block struct {
			Hash         string
			Transactions connection[struct{ Hash string }]
		}
	}
	started := time.Now()
	s.mustQuery(`{ block(number: 1) { hash transactions(first: 2) { edges { node { hash } } } } }`, nil, &one)
	if took := time.Since(started); took > 30*time.Second {
		t.Errorf("the document took %v: a load waited for the loaders' batch window", took)
	}
	if one.Block.Hash != db.FeltFromUint64(0xb1).Hex() || len(one.Block.Transactions.Edges) != 2 ||
		one.Block.Transactions.Edges[1].Node.Hash != db.FeltFromUint64(0x7000+10+1).Hex() {
		t.Errorf("block 1 answered %+v", one.Block)
	}

	loaders.BatchWait = time.Second // long enough for the two aliases to meet on a busy machine
	var two struct{ A, B struct{ Number int } }
	before := s.store.Statements()
	s.mustQuery(`{ a: block(number: 1) { number } b: block(number: 2) { number } }`, nil, &two)
	if n := s.store.Statements() - before; n != 1 || two.A.Number != 1 || two.B.Number != 2 {
		t.Errorf("two aliases of block answered %+v in %d statements, want 1 and 2 in one", two, n)
	}
}

// A page of transactions whose blocks are asked for reads them in one statement as soon as
// the page is read, without the loaders' batch window: with a window of a minute, the
// document still answers at once, and every transaction shows its own block.
func TestTransactionBlocksLoadedWithThePage(t *testing.T) {
	s := blocksWithAMinuteBatchWindow(t)

	var out struct {
		Transactions connection[struct {
			BlockNumber int
			Block       struct {
				Number int
				Hash   string
			}
		}]
	}
	before, started := s.store.Statements(), time.Now()
	s.mustQuery(`{ transactions(first: 6) { edges { node { blockNumber block { number hash } } } } }`, nil, &out)
	if took := time.Since(started); took > 30*time.Second {
		t.Errorf("the document took %v: its blocks waited for the loaders' batch window", took)
	}
	if n := s.store.Statements() - before; n != 2 {
		t.Errorf("6 transactions with their blocks took %d statements, want 2 (the page, the blocks)", n)
	}
	if len(out.Transactions.Edges) != 6 {
		t.Fatalf("%d transactions, want 6", len(out.Transactions.Edges))
	}
	for _, e := range out.Transactions.Edges {
		if e.Node.Block.Number != e.Node.BlockNumber || e.Node.Block.Hash != db.FeltFromUint64(uint64(0xb0+e.Node.BlockNumber)).Hex() {
			t.Errorf("a transaction of block %d shows block %+v", e.Node.BlockNumber, e.Node.Block)
		}
	}

	// A page of transactions with their transfers and the transfers' tokens: one statement
	// per link, none waiting.
	s.exec(`INSERT INTO tokens (address, standard, symbol) VALUES ('\x070c', 'erc20', 'STRK')`)
	for i := range 2 {
		s.exec(`INSERT INTO token_transfers (block_number, tx_index, event_index, token_id, from_id, to_id, amount, is_fee)
			VALUES (1, $1, 0, felt_id('\x070c'), felt_id('\xaa'), felt_id('\xbb'), $2, false),
			(1, $1, 1, felt_id('\x070c'), felt_id('\xaa'), felt_id('\x05e9'), 1, true)`,
			i, 5+i)
	}
	var nested struct {
		Transactions connection[struct {
			TokenTransfers []struct {
				Amount string
				Token  struct{ Symbol string }
			}
		}]
	}
	// Once to warm the store's cache of felt ids, as in a running service; then counted.
	s.mustQuery(`{ transactions(first: 2, filter: {fromBlock: 1, toBlock: 1}) { edges { node { tokenTransfers { amount token { symbol } } } } } }`, nil, &nested)
	before, started = s.store.Statements(), time.Now()
	s.mustQuery(`{ transactions(first: 2, filter: {fromBlock: 1, toBlock: 1}) { edges { node { tokenTransfers { amount token { symbol } } } } } }`, nil, &nested)
	if took := time.Since(started); took > 30*time.Second {
		t.Errorf("the nested document took %v: its links waited for the loaders' batch window", took)
	}
	if n := s.store.Statements() - before; n != 3 {
		t.Errorf("transactions with their transfers and tokens took %d statements, want 3", n)
	}
	var got []string
	for _, e := range nested.Transactions.Edges {
		for _, tr := range e.Node.TokenTransfers {
			got = append(got, tr.Amount+" "+tr.Token.Symbol)
		}
	}
	if strings.Join(got, ",") != "6 STRK,1 STRK,5 STRK,1 STRK" {
		t.Errorf("transfers %q", got)
	}
}
