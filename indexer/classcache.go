package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
)

// classCache remembers what the indexer knows of classes: their flags and function names
// (content-addressed, so never stale) and whether the classes table already has the row.
// The "stored" marks follow the database and are dropped when a write fails or a reorg is
// undone (reset), after which they are read again.
type classCache struct {
	mu     sync.Mutex
	info   map[starknet.Felt]*classInfo
	inDB   map[starknet.Felt]bool
	probed map[starknet.Felt]bool // looked up in the database already
}

func newClassCache() *classCache {
	c := &classCache{}
	c.reset()
	return c
}

func (c *classCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.info == nil {
		c.info = map[starknet.Felt]*classInfo{}
	}
	c.inDB = map[starknet.Felt]bool{}
	c.probed = map[starknet.Felt]bool{}
}

func (c *classCache) get(h starknet.Felt) *classInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info[h]
}

func (c *classCache) put(h starknet.Felt, info *classInfo) {
	if info == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.info[h] = info
}

func (c *classCache) stored(h starknet.Felt) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inDB[h]
}

func (c *classCache) markStored(h starknet.Felt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inDB[h], c.probed[h] = true, true
}

// known reports whether the class needs no fetch from the node.
func (c *classCache) known(h starknet.Felt) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inDB[h] || c.info[h] != nil
}

// load reads from the database the classes among hashes not looked up yet.
func (c *classCache) load(ctx context.Context, q sqlx.QueryerContext, hashes []starknet.Felt) error {
	c.mu.Lock()
	var todo []db.Felt
	seen := map[starknet.Felt]bool{}
	for _, h := range hashes {
		if !c.probed[h] && !seen[h] {
			seen[h] = true
			todo = append(todo, db.FeltOf(h))
		}
	}
	c.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	rows, err := db.LoadClasses(ctx, q, todo)
	if err != nil {
		return fmt.Errorf("load classes: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for h := range seen {
		c.probed[h] = true
	}
	for _, r := range rows {
		h := r.Hash.Starknet()
		c.inDB[h] = true
		if c.info[h] == nil {
			c.info[h] = classInfoFromRow(&r)
		}
	}
	return nil
}

func classInfoFromRow(r *db.Class) *classInfo {
	parsed := parseStoredABI(json.RawMessage(r.ABI))
	info := &classInfo{Kind: r.Kind, CairoVersion: r.CairoVersion, Version: r.Version, ABI: json.RawMessage(r.ABI),
		IsAccount: r.IsAccount, IsProxy: r.IsProxy, Functions: functionNames(parsed), Parsed: parsed}
	if r.RawErcStandard != nil {
		info.ERCStandard = *r.RawErcStandard
	}
	return info
}
