package resolvers

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/loaders"
)

// maxSearchResults bounds search's first.
const maxSearchResults = MaxPageSize

// search answers Query.search: exact matches (a block number, or a hash or address of any
// kind) first, then hex-prefix matches (of 6 digits and more), or what a name (a label or
// a .stark domain, db.Store.NamesByText) names and tokens by the start of their symbol or
// name.
// Every lookup is an index probe or an index range scan.
func (r *Resolver) search(ctx context.Context, query string, first *int) ([]db.Node, error) {
	n := 10
	if first != nil {
		n = *first
	}
	if n < 1 || n > maxSearchResults {
		return nil, badInput("first", fmt.Sprintf("must be between 1 and %d", maxSearchResults))
	}
	q := strings.TrimSpace(query)
	if q == "" || len(q) > 200 {
		return nil, badInput("query", "must be 1 to 200 characters")
	}
	var out []db.Node
	add := func(nodes ...db.Node) {
		for _, x := range nodes {
			if x != nil && len(out) < n && !containsNode(out, x) {
				out = append(out, x)
			}
		}
	}
	switch {
	case isDigits(q):
		number, err := strconv.ParseInt(q, 10, 64)
		if err != nil {
			return []db.Node{}, nil // no block has such a number
		}
		b, err := loaders.For(ctx).Block.Load(ctx, number)()
		if err != nil || b == nil {
			return []db.Node{}, err
		}
		return []db.Node{b}, nil
	case len(q) > 2 && (q[:2] == "0x" || q[:2] == "0X"):
		digits := strings.ToLower(q[2:])
		if len(digits) > 64 || !isHex(digits) {
			return nil, badInput("query", "is not 0x followed by hex digits")
		}
		if f, err := db.ParseFelt(q); err == nil {
			exact, err := r.searchExact(ctx, f)
			if err != nil {
				return nil, err
			}
			add(exact...)
		}
		if len(digits) >= 6 && len(digits) < 64 { // shorter values are looked up only as they are
			found, err := r.searchPrefix(ctx, digits, n)
			if err != nil {
				return nil, err
			}
			add(found...)
		}
	default:
		// Tokens by symbol or name, then what a name (a label or a domain) names.
		tokens, err := r.Store.TokensByText(ctx, q, n)
		if err != nil {
			return nil, err
		}
		for _, t := range tokens {
			add(t)
		}
		named, err := r.Store.NamesByText(ctx, q, n)
		if err != nil {
			return nil, err
		}
		addrs := make([]db.Felt, len(named))
		for i, a := range named {
			addrs[i] = a.Address
		}
		found, err := searchExactAll(ctx, addrs)
		if err != nil {
			return nil, err
		}
		add(found...)
	}
	if out == nil {
		out = []db.Node{}
	}
	return out, nil
}

// searchedKinds are the kinds a hash or address may be the key of.
var searchedKinds = []string{"Block", "Transaction", "Contract", "Class", "Token", "Validator"}

// searchExact looks a felt up as every kind of key at once (one statement per kind).
func (r *Resolver) searchExact(ctx context.Context, f db.Felt) ([]db.Node, error) {
	k := string(db.Normalize(f))
	waits := make([]func() (db.Node, error), len(searchedKinds))
	for i, kind := range searchedKinds {
		waits[i] = loadByKey(ctx, kind, k)
	}
	return awaitAll(waits)
}

// searchExactAll looks felts up as every kind of key, with one statement per kind for all
// of them (however many names a search found, in GraphQL and in REST alike): what each felt
// is, in the felts' order.
func searchExactAll(ctx context.Context, felts []db.Felt) ([]db.Node, error) {
	if len(felts) == 0 {
		return nil, nil
	}
	keys := make([]string, len(felts))
	for i, f := range felts {
		keys[i] = string(db.Normalize(f))
	}
	l := loaders.For(ctx)
	byKind := make([][]db.Node, len(searchedKinds))
	for k, kind := range searchedKinds {
		var err error
		switch kind {
		case "Block":
			byKind[k], err = loadAllNodes(ctx, l.BlockBy, keys)
		case "Transaction":
			byKind[k], err = loadAllNodes(ctx, l.TransactionBy, keys)
		case "Contract":
			byKind[k], err = loadAllNodes(ctx, l.Contract, keys)
		case "Class":
			byKind[k], err = loadAllNodes(ctx, l.Class, keys)
		case "Token":
			byKind[k], err = loadAllNodes(ctx, l.Token, keys)
		case "Validator":
			byKind[k], err = loadAllNodes(ctx, l.Validator, keys)
		default:
			panic("resolvers: searchExactAll has no loader for kind " + kind)
		}
		if err != nil {
			return nil, err
		}
	}
	var out []db.Node
	for i := range keys {
		for k := range searchedKinds {
			if x := byKind[k][i]; x != nil {
				out = append(out, x)
			}
		}
	}
	return out, nil
}

// loadAllNodes loads keys in one batch (loaders.Lazy.LoadAll), a missing row a nil Node.
func loadAllNodes[T any](ctx context.Context, z *loaders.Lazy[string, *T], keys []string) ([]db.Node, error) {
	rows, err := z.LoadAll(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]db.Node, len(rows))
	for i, r := range rows {
		if r != nil {
			out[i] = any(r).(db.Node)
		}
	}
	return out, nil
}

// searchPrefix finds hashes and addresses whose 64-digit form starts with digits, or with
// 0 and digits (the form without its leading zero), by index range scans; then loads them.
func (r *Resolver) searchPrefix(ctx context.Context, digits string, n int) ([]db.Node, error) {
	var waits []func() (db.Node, error)
	for _, p := range []string{digits, "0" + digits} {
		if len(p) > 64 || strings.HasPrefix(p, "00") {
			continue // a range of values with a zero first byte mixes column forms of other lengths
		}
		lo, _ := hex.DecodeString(p + strings.Repeat("0", 64-len(p)))
		hi, _ := hex.DecodeString(p + strings.Repeat("f", 64-len(p)))
		hits, err := r.Store.SearchKeyRange(ctx, db.Normalize(lo), db.Normalize(hi), n)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			waits = append(waits, loadByKey(ctx, h.Kind, string(h.Key)))
		}
	}
	return awaitAll(waits)
}

func containsNode(nodes []db.Node, x db.Node) bool {
	for _, n := range nodes {
		if n == x || sameObject(n, x) {
			return true
		}
	}
	return false
}

// sameObject tells whether two nodes loaded by different paths (a token found by its
// symbol and by its label) are the same object.
func sameObject(a, b db.Node) bool {
	switch a := a.(type) {
	case *db.Token:
		b, ok := b.(*db.Token)
		return ok && a.Address.Equal(b.Address)
	case *db.Contract:
		b, ok := b.(*db.Contract)
		return ok && a.Address.Equal(b.Address)
	case *db.Class:
		b, ok := b.(*db.Class)
		return ok && a.Hash.Equal(b.Hash)
	case *db.Validator:
		b, ok := b.(*db.Validator)
		return ok && a.StakerAddress.Equal(b.StakerAddress)
	}
	return false
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func isHex(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdef") == ""
}
