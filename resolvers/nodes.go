package resolvers

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/loaders"
)

// Global ids are made by the row types (db/nodeid.go); nodeLoad reads them back.

// maxNodes bounds nodes(ids).
const maxNodes = MaxPageSize

// nodeLoad starts loading the object of a global id; wait returns it (nil when none is
// indexed). Loads started together batch into one statement per kind.
func nodeLoad(ctx context.Context, id string) (wait func() (db.Node, error), err error) {
	bad := badInput("id", "is not an id returned by this API")
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil || len(raw) > 300 {
		return nil, bad
	}
	kind, key, ok := strings.Cut(string(raw), ":")
	if !ok {
		return nil, bad
	}
	l := loaders.For(ctx)
	felt := func() (string, bool) {
		f, err := db.ParseFelt(key)
		return string(db.Normalize(f)), err == nil
	}
	ints := func(n int) ([]int64, bool) {
		parts := strings.Split(key, ":")
		if len(parts) != n {
			return nil, false
		}
		out := make([]int64, n)
		for i, p := range parts {
			v, err := strconv.ParseInt(p, 10, 64)
			if err != nil || v < 0 || v > 1<<40 || p != strconv.FormatInt(v, 10) {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	}
	switch kind {
	case "Block":
		if n, ok := ints(1); ok {
			return waitFor(l.Block.Load(ctx, n[0])), nil
		}
	case "Event":
		if n, ok := ints(3); ok {
			return waitFor(l.Event.Load(ctx, db.EventKey{Block: n[0], Tx: int(n[1]), Event: int(n[2])})), nil
		}
	case "Message":
		if n, ok := ints(4); ok && n[2] <= 1 {
			return waitFor(l.Message.Load(ctx, db.MessageKey{Block: n[0], Tx: int(n[1]), Direction: int(n[2]), Index: int(n[3])})), nil
		}
	case "Transaction", "Contract", "Class", "Token", "Validator", "Pool":
		if k, ok := felt(); ok {
			return loadByKey(ctx, kind, k), nil
		}
	case "NftItem":
		contract, tokenID, ok := strings.Cut(key, ":")
		f, err := db.ParseFelt(contract)
		if v, valid := new(big.Int).SetString(tokenID, 10); ok && err == nil && valid && v.Sign() >= 0 && v.String() == tokenID {
			return waitFor(l.NftItem.Load(ctx, itemKey(f, tokenID))), nil
		}
	}
	return nil, bad
}

// loadByKey starts loading an object of a kind found by its hash or address (column form,
// as a string): Block (by hash), Transaction, Contract, Class, Token, Validator or Pool.
func loadByKey(ctx context.Context, kind, key string) func() (db.Node, error) {
	l := loaders.For(ctx)
	switch kind {
	case "Block":
		return waitFor(l.BlockBy.Load(ctx, key))
	case "Transaction":
		return waitFor(l.TransactionBy.Load(ctx, key))
	case "Contract":
		return waitFor(l.Contract.Load(ctx, key))
	case "Class":
		return waitFor(l.Class.Load(ctx, key))
	case "Token":
		return waitFor(l.Token.Load(ctx, key))
	case "Validator":
		return waitFor(l.Validator.Load(ctx, key))
	case "Pool":
		return waitFor(l.Pool.Load(ctx, key))
	}
	panic("resolvers: no loader for kind " + kind) // the callers name only the kinds above
}

// awaitAll waits for loads started together; a missing object stays nil in its place.
func awaitAll(waits []func() (db.Node, error)) ([]db.Node, error) {
	out := make([]db.Node, len(waits))
	for i, w := range waits {
		n, err := w()
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// waitFor adapts a loader's thunk to a Node, keeping a missing row a nil interface.
func waitFor[T any](thunk func() (*T, error)) func() (db.Node, error) {
	return func() (db.Node, error) {
		v, err := thunk()
		if err != nil || v == nil {
			return nil, err
		}
		return v, nil
	}
}

// loadNodes loads many global ids in one go.
func loadNodes(ctx context.Context, ids []string) ([]db.Node, error) {
	if len(ids) > maxNodes {
		return nil, badInput("ids", fmt.Sprintf("has more than %d ids", maxNodes))
	}
	waits := make([]func() (db.Node, error), len(ids))
	for i, id := range ids {
		w, err := nodeLoad(ctx, id)
		if err != nil {
			return nil, err
		}
		waits[i] = w
	}
	return awaitAll(waits)
}
