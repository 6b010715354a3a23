package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/starkgraph/starkgraph/cursor"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// Every list of both APIs is in the bench (issue 59): each REST list route (a route that
// declares a page, page size, limit or cursor parameter, rest.Operations) and each GraphQL
// root connection (a Query field whose type is a Connection) is read on its first page and
// on a deep page, unfiltered where it allows it and by its hottest key where it takes
// one. The lists come from the declarations, not from a table here: a new route is read
// unfiltered with nothing to add, and a route that takes a key the bench does not know
// fails TestEveryListIsInTheBench until restListKeys or graphListKeys names its key.

// Workloads of the lists carry what they read, for TestEveryListIsInTheBench:
//
//   - List is "GET /beta/..." (the route as declared) or "GraphQL <field>";
//   - Page is PageFirst or PageDeep;
//   - Keyed says it reads the list by its hottest key.

// PageFirst and PageDeep are the pages a list workload reads.
const (
	PageFirst = "page 1"
	PageDeep  = "deep page"
)

// listKey is the parameter (REST) or argument (GraphQL) a list takes its hottest key in,
// and the filter of hotKeyQueries or listKeyQueries that picks the key.
type listKey struct {
	param  string // REST: the declared parameter; GraphQL: the arguments, %s the key
	filter string
}

// restListKeys are the REST list routes' keys, by declared path.
var restListKeys = map[string]listKey{
	"/beta/nft-items":                             {"contract_address", "NFT items by collection"},
	"/beta/nft-events":                            {"contract_address", "NFT events by collection"},
	"/beta/nft-contract-balance":                  {"owner_address", "NFT items by owner"},
	"/beta/nft-holders":                           {"contract_address", "NFT holders by collection"},
	"/beta/tx-activity":                           {"sender_address", "transactions by sender"},
	"/beta/meta-txns":                             {"to", "meta transactions by contract"},
	"/beta/txns":                                  {"to", "transactions by called contract"},
	"/beta/events":                                {"contract", "events by emitter"},
	"/beta/tokens/{address}/holders":              {"address", "holders by token"},
	"/beta/classes/{classHash}/contracts":         {"classHash", "contracts by class"},
	"/beta/token-transfers":                       {"token_address", "transfers by token"},
	"/beta/contracts/{contractAddress}/transfers": {"contractAddress", "transfers by wallet"},
	"/beta/event-activity":                        {"from_address", "transfers by sender"},
	"/beta/messages":                              {"contract", "messages by contract"},
	"/beta/message/{msgHash}/bridgeTransactions":  {"msgHash", "messages by hash"},
	"/beta/staking/delegators":                    {"validator", "delegations by validator"},
	"/beta/staking/wallet-info/activity":          {"address", "staking activity by wallet"},
	"/beta/staking/validator-details/activity":    {"address", "staking activity by validator"},
	"/beta/staking/attestations":                  {"validator", "attestations by validator"},
	"/beta/nft-contract/{contract_address}":       {"contract_address", "NFT items by collection"},
	"/beta/nft/{contract_address}/{token_id}":     {"contract_address", "NFT events by token"},
	"/beta/nft-balances":                          {"contract_address", "NFT balances by collection"},
	"/beta/nft-transfers":                         {"contract_address", "NFT events by collection"},
}

// restFixed are values a route requires that are not keys: the text of a search.
var restFixed = map[string]map[string]string{
	"/beta/search": {"q": "STRK"},
}

// restNoDeepPage are the list routes that have no page after their first, and why.
var restNoDeepPage = map[string]string{
	"/beta/search": "answers its first `limit` matches, with no page after them",
}

// restCursorOps name the REST cursor lists as their cursors are bound to them (rest's
// windowOf): a deep page starts at a cursor sealed for its list at DeepOffset.
var restCursorOps = map[string]string{
	"/beta/nft-items":                         "nft-items",
	"/beta/nft-events":                        "nft-events",
	"/beta/nft-contract-balance":              "nft-contract-balance",
	"/beta/nft-transfers":                     "nft-transfers",
	"/beta/nft-contract/{contract_address}":   "nft-contract",
	"/beta/nft/{contract_address}/{token_id}": "nft-details",
}

// restKeysetID are the REST lists paged by the id of the last row of the previous page
// (token transfers), and the parameter that takes it: their deep page starts there. A
// page number of /beta/event-activity goes no further than 100 (its rows are skipped),
// its id goes anywhere.
var restKeysetID = map[string]string{
	"/beta/token-transfers":                       "id",
	"/beta/contracts/{contractAddress}/transfers": "id",
	"/beta/event-activity":                        "last_id",
}

// restKeyRequired are the list routes that answer only by a key though they declare none
// required, and why.
var restKeyRequired = map[string]string{
	"/beta/event-activity": "answers 400 without from_address or to_address",
}

// graphListFields are, for the GraphQL lists whose every scalar field is not what a client
// of the list asks, the fields a page of the list asks instead: those of the REST list that
// answers it. A transaction's fields beyond its list's (calldata, signature, nonce, fees,
// resources, the L1 message and deployment fields) come from its whole row, one resolver
// and one load of the row each per transaction (resolvers.WholeTransaction): asked for all
// of them, a page of 25 ran about 5 times fewer pages a second than one with the REST
// list's fields on the 1M bench, with the same statements (issue 59). They are a
// transaction's details, which a client asks of one transaction (GET /beta/txns/{txnHash},
// transaction(hash)), not of a page of them.
var graphListFields = map[string][]string{
	"transactions": {"hash", "blockNumber", "blockHash", "index", "type", "version", "timestamp", "status", "executionStatus",
		"finalityStatus", "revertError", "senderAddress", "contractAddress", "classHash", "actualFee", "actualFeeUnit",
		"senderAlias", "contractAlias", "classAlias"},
}

// graphListKeys are the GraphQL root connections' keys, by field.
var graphListKeys = map[string]listKey{
	"transactions":     {`filter: {senderAddress: "%s"}`, "transactions by sender"},
	"events":           {`filter: {fromAddress: "%s"}`, "events by emitter"},
	"metaTransactions": {`contractAddress: "%s"`, "meta transactions by contract"},
	"messages":         {`filter: {contract: "%s"}`, "messages by contract"},
	"nftItems":         {`contractAddress: "%s"`, "NFT items by collection"},
	"nftEvents":        {`contractAddress: "%s"`, "NFT events by collection"},
	"nftHolders":       {`contractAddress: "%s"`, "NFT holders by collection"},
	"nftBalances":      {`contractAddress: "%s"`, "NFT balances by collection"},
	"stakingActivity":  {`filter: {wallet: "%s"}`, "staking activity by wallet"},
	"attestations":     {`validator: "%s"`, "attestations by validator"},
	"tokenTransfers":   {`token: "%s"`, "transfers by token"},
}

// listKeyQueries pick the hottest keys of the lists that hotKeyQueries does not cover.
var listKeyQueries = []struct{ filter, query string }{
	{"NFT items by collection", `SELECT contract_address, count(*) FROM nft_items GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"NFT items by owner", `SELECT owner_address, count(*) FROM nft_items WHERE owner_address IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"NFT events by collection", `SELECT contract_address, count(*) FROM nft_events GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"NFT balances by collection", `SELECT contract_address, count(*) FROM nft_balances GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"transfers by sender", `SELECT f.felt, n FROM (SELECT from_id, count(*) AS n FROM token_transfers GROUP BY 1) x
		JOIN felt_ids f ON f.id = x.from_id ORDER BY 2 DESC, 1 LIMIT 1`},
	{"meta transactions by contract", `SELECT contract_address, count(*) FROM meta_transactions GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"messages by contract", `SELECT l2_address, count(*) FROM messages WHERE l2_address IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"messages by hash", `SELECT message_hash, count(*) FROM messages WHERE message_hash IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"staking activity by wallet", `SELECT wallet_address, count(*) FROM staking_activity WHERE wallet_address IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"staking activity by validator", `SELECT staker_address, count(*) FROM staking_activity WHERE staker_address IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"attestations by validator", `SELECT staker_address, count(*) FROM attestations GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
}

// listData is what the list workloads take from the database.
type listData struct {
	keys map[string]HotKey
	// nftToken is the token id of the NFT with the most events, of keys["NFT events by token"].
	nftToken string
	// transferIDs are the ids of the transfer DeepOffset rows down (or the last, if fewer)
	// of REST's keyset lists: "" unfiltered, else by the filter's hottest key.
	transferIDs map[string]string
}

// ListWorkloads are page 1 and a deep page of every list of both APIs, unfiltered and by
// its hottest key. Keys the data has no row for are left out (the simulated chain of a
// few thousand transactions has no attestations, for one).
func ListWorkloads(ctx context.Context, conn *sqlx.DB) ([]Workload, error) {
	keys, err := hotKeysOf(ctx, conn, hotKeyQueries)
	if err != nil {
		return nil, err
	}
	more, err := hotKeysOf(ctx, conn, listKeyQueries)
	if err != nil {
		return nil, err
	}
	for f, k := range more {
		keys[f] = k
	}
	d := listData{keys: keys, transferIDs: map[string]string{}}
	// The NFT with the most events: a contract and a token id.
	var nft struct {
		Contract db.Felt `db:"contract_address"`
		Token    string  `db:"token_id"`
		N        int64   `db:"n"`
	}
	switch err := conn.GetContext(ctx, &nft, `SELECT contract_address, token_id::text AS token_id, count(*) AS n FROM nft_events
		GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 1`); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("bench: the NFT with the most events: %w", err)
	default:
		keys["NFT events by token"] = HotKey{Filter: "NFT events by token", Key: nft.Contract, Rows: nft.N}
		d.nftToken = nft.Token
	}
	// The transfer DeepOffset rows down (or the last), newest first, as REST's keyset
	// lists order them.
	const order = `ORDER BY block_number DESC, tx_index DESC, event_index DESC`
	transferAt := func(where string, args ...any) (string, error) {
		var id string
		err := conn.GetContext(ctx, &id, `SELECT block_number || '_' || tx_index || '_' || event_index FROM (
			SELECT block_number, tx_index, event_index FROM token_transfers `+where+` `+order+` LIMIT `+strconv.Itoa(DeepOffset)+`) x
			ORDER BY block_number, tx_index, event_index LIMIT 1`, args...)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		return id, err
	}
	if d.transferIDs[""], err = transferAt(""); err != nil {
		return nil, fmt.Errorf("bench: a deep transfer: %w", err)
	}
	for _, f := range []string{"transfers by token", "transfers by wallet", "transfers by sender"} {
		k := keys[f]
		if k.Key == nil {
			continue
		}
		where := map[string]string{
			"transfers by token":  `WHERE token_id = (SELECT id FROM felt_ids WHERE felt = $1)`,
			"transfers by wallet": `WHERE from_id = (SELECT id FROM felt_ids WHERE felt = $1) OR to_id = (SELECT id FROM felt_ids WHERE felt = $1)`,
			"transfers by sender": `WHERE from_id = (SELECT id FROM felt_ids WHERE felt = $1)`,
		}[f]
		if d.transferIDs[f], err = transferAt(where, k.Key); err != nil {
			return nil, fmt.Errorf("bench: a deep transfer of %s: %w", f, err)
		}
	}
	secret, err := cursor.LoadOrCreateSecret(ctx, conn)
	if err != nil {
		return nil, err
	}
	cursor.SetDefault(cursor.New(secret))
	return listWorkloads(d)
}

// isListParam says a declared parameter pages a list.
func isListParam(p rest.Param) bool {
	return p.Kind == "page" || p.Kind == "pageSize" || p.Kind == "limit" || p.Kind == "cursor"
}

// IsRESTList says a route is a list: it declares a parameter that pages it.
func IsRESTList(op rest.Operation) bool { return slices.ContainsFunc(op.Params, isListParam) }

// IsKeyParam says a declared parameter names something by its address or hash.
func IsKeyParam(p rest.Param) bool { return p.Kind == "felt" || p.Kind == "hash" }

// GraphConnections are the GraphQL root connections, the Query fields whose type is a
// Connection.
func GraphConnections() []*ast.FieldDefinition {
	var out []*ast.FieldDefinition
	for _, f := range graphSchema().Query.Fields {
		if strings.HasSuffix(f.Type.Name(), "Connection") {
			out = append(out, f)
		}
	}
	return out
}

func graphSchema() *ast.Schema { return graph.NewExecutableSchema(graph.Config{}).Schema() }

// listWorkloads builds the list workloads from d.
func listWorkloads(d listData) ([]Workload, error) {
	var out []Workload
	keyOf := func(filter string) (HotKey, string, bool) {
		k := d.keys[filter]
		if k.Key == nil {
			return k, "", false
		}
		return k, k.Key.Padded(), true
	}
	// REST.
	deepPage := strconv.Itoa(DeepOffset/PageSize + 1)
	for _, op := range rest.Operations() {
		if op.Method != "GET" || !IsRESTList(op) {
			continue
		}
		list := op.Method + " " + op.Path
		_, required := restKeyRequired[op.Path]
		for _, p := range op.Params {
			if p.Required && restFixed[op.Path][p.Name] == "" {
				required = true
			}
		}
		type variant struct {
			label  string
			keyed  bool
			values map[string]string
			filter string // "" unfiltered
		}
		var variants []variant
		if !required {
			variants = append(variants, variant{label: "unfiltered", values: map[string]string{}})
		}
		if lk, ok := restListKeys[op.Path]; ok {
			if k, key, ok := keyOf(lk.filter); ok {
				v := variant{label: fmt.Sprintf("%s=%s (%s, %d rows)", lk.param, shortKey(key), lk.filter, k.Rows), keyed: true,
					values: map[string]string{lk.param: key}, filter: lk.filter}
				if lk.filter == "NFT events by token" {
					v.values["token_id"] = d.nftToken
				}
				variants = append(variants, v)
			}
		}
		for _, v := range variants {
			for name, val := range restFixed[op.Path] {
				v.values[name] = val
			}
			for _, page := range []string{PageFirst, PageDeep} {
				values := map[string]string{}
				for n, val := range v.values {
					values[n] = val
				}
				offset := 0
				if page == PageDeep {
					if _, none := restNoDeepPage[op.Path]; none {
						continue
					}
					offset = DeepOffset
				}
				placed := page == PageFirst // a deep page is placed once a parameter takes its position
				if idParam, ok := restKeysetID[op.Path]; ok && page == PageDeep {
					if id := d.transferIDs[v.filter]; id != "" {
						values[idParam], placed = id, true
					}
				}
				for _, p := range op.Params {
					switch p.Kind {
					case "pageSize", "limit":
						values[p.Name] = strconv.Itoa(PageSize)
					case "page":
						if page == PageDeep && !placed {
							values[p.Name], placed = deepPage, true
						}
					case "cursor":
						if name, ok := restCursorOps[op.Path]; ok && page == PageDeep && !placed {
							values[p.Name], placed = cursor.Default().Seal("rest:"+name, restCursor{Op: name, Offset: DeepOffset}), true
						}
					}
				}
				if !placed {
					continue // no way to a deep page: TestEveryListIsInTheBench names it
				}
				path, query := op.Target(values)
				if query != "" {
					path += "?" + query
				}
				out = append(out, Workload{Name: fmt.Sprintf("list %s, %s, %s", list, v.label, page), Path: path,
					List: list, Page: page, Keyed: v.keyed, Offset: offset, Limit: PageSize})
			}
		}
	}
	// GraphQL.
	schema := graphSchema()
	for _, f := range GraphConnections() {
		list := "GraphQL " + f.Name
		selection, err := connectionSelection(schema, f)
		if err != nil {
			return nil, err
		}
		required := slices.ContainsFunc(f.Arguments, func(a *ast.ArgumentDefinition) bool { return a.Type.NonNull })
		type variant struct {
			label, args string
			keyed       bool
		}
		var variants []variant
		if !required {
			variants = append(variants, variant{label: "unfiltered"})
		}
		if lk, ok := graphListKeys[f.Name]; ok {
			if k, key, ok := keyOf(lk.filter); ok {
				variants = append(variants, variant{label: fmt.Sprintf("%s (%d rows)", lk.filter, k.Rows), args: fmt.Sprintf(lk.param, key), keyed: true})
			}
		}
		for _, v := range variants {
			for _, page := range []string{PageFirst, PageDeep} {
				args := []string{fmt.Sprintf("first: %d", PageSize)}
				offset := 0
				if page == PageDeep {
					offset = DeepOffset
					args = append(args, fmt.Sprintf("after: %q", resolvers.OffsetCursor(DeepOffset)))
				}
				if v.args != "" {
					args = append(args, v.args)
				}
				doc := fmt.Sprintf(`{ %s(%s) %s }`, f.Name, strings.Join(args, ", "), selection)
				out = append(out, Workload{Name: fmt.Sprintf("list %s, %s, %s", list, v.label, page), Path: "/graphql",
					Body: fmt.Sprintf(`{"query":%q}`, doc), List: list, Page: page, Keyed: v.keyed, Offset: offset, Limit: PageSize})
			}
		}
	}
	return out, nil
}

// restCursor is the position a REST cursor list resumes at, as rest seals it.
type restCursor struct {
	Op     string `json:"k"`
	Offset int    `json:"o"`
}

// connectionSelection selects a connection's nodes with every field of theirs that is a
// scalar or an enum and takes no argument, as a page of a client's list shows them, or
// with the fields graphListFields names for it.
func connectionSelection(schema *ast.Schema, f *ast.FieldDefinition) (string, error) {
	conn := schema.Types[f.Type.Name()]
	edges := conn.Fields.ForName("edges")
	if edges == nil {
		return "", fmt.Errorf("bench: %s (%s) has no edges", f.Name, f.Type.Name())
	}
	node := schema.Types[edges.Type.Name()].Fields.ForName("node")
	if node == nil {
		return "", fmt.Errorf("bench: %s's edges have no node", f.Name)
	}
	var fields []string
	if named, ok := graphListFields[f.Name]; ok {
		for _, name := range named {
			if schema.Types[node.Type.Name()].Fields.ForName(name) == nil {
				return "", fmt.Errorf("bench: %s's nodes have no field %s (graphListFields)", f.Name, name)
			}
		}
		return fmt.Sprintf("{ edges { node { %s } } pageInfo { hasNextPage endCursor } }", strings.Join(named, " ")), nil
	}
	for _, nf := range schema.Types[node.Type.Name()].Fields {
		if strings.HasPrefix(nf.Name, "__") || len(nf.Arguments) > 0 {
			continue
		}
		if t := schema.Types[nf.Type.Name()]; t != nil && (t.Kind == ast.Scalar || t.Kind == ast.Enum) {
			fields = append(fields, nf.Name)
		}
	}
	if len(fields) == 0 {
		fields = []string{"__typename"}
	}
	return fmt.Sprintf("{ edges { node { %s } } pageInfo { hasNextPage endCursor } }", strings.Join(fields, " ")), nil
}

// shortKey is a key as the workloads' names show it.
func shortKey(k string) string {
	if len(k) > 14 {
		return k[:8] + "…" + k[len(k)-4:]
	}
	return k
}
