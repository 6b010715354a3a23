package db

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/jmoiron/sqlx"
)

// The names of a page's addresses (AliasesOf) are the one statement every REST list and
// most GraphQL documents share, and they rarely change: a store may keep them (CacheNames)
// for a TTL, the absence of a name as well as a name (most addresses have none). A page
// whose addresses were all named within the TTL then runs no names statement; the misses
// of a batch are read in one statement.
//
// How stale a name may be: a name written by another process (the indexer's Starknet ID
// names and token metadata, `starkgraph labels`, a verify-worker) or a domain expiring in
// chain time shows within the TTL. The writes this process makes itself through this
// package (verification's verified_classes, labels, and the indexer of `dev`) forget every
// name cached in the process when they commit (ForgetNames).
const (
	// DefaultNamesTTL is how long a name, or its absence, is kept by default.
	DefaultNamesTTL = 30 * time.Second
	// namesCacheSize bounds the addresses kept: about 250 bytes each, 16 MB in all.
	namesCacheSize = 1 << 16
)

// namesEpoch counts the names writes committed by this process. An entry is served only
// while the epoch it was read in is the current one: ForgetNames forgets every cache at
// once, and a read that overlapped a write (its rows may be older than the write) keeps
// nothing, since it took the epoch before its statement ran.
var namesEpoch atomic.Uint64

// ForgetNames makes every names cache of the process forget what it holds. The writes of
// names call it after they commit.
func ForgetNames() { namesEpoch.Add(1) }

// commitNames commits a transaction that wrote names, then forgets the names cached in
// the process (also when the commit failed: it may have happened all the same).
func commitNames(tx *sqlx.Tx) error {
	err := tx.Commit()
	ForgetNames()
	return err
}

// cachedName is a key's name, or its absence (named false), as read in an epoch.
type cachedName struct {
	name, source string
	named        bool
	epoch        uint64
}

type namesCache struct {
	kept *expirable.LRU[string, cachedName]
	// counted, when set, is told how many keys of each lookup were answered from the cache
	// and how many went to SQL (for metrics).
	counted func(hits, misses int)
}

// CacheNames makes the store keep the names AliasesOf reads for ttl (0 or less: no cache,
// as a new store has), telling counted (when set) the hits and misses of each lookup. Set
// it before the store serves.
func (s *Store) CacheNames(ttl time.Duration, counted func(hits, misses int)) {
	s.cacheNames(ttl, namesCacheSize, counted)
}

func (s *Store) cacheNames(ttl time.Duration, size int, counted func(hits, misses int)) {
	if ttl <= 0 {
		s.names = nil
		return
	}
	s.names = &namesCache{kept: expirable.NewLRU[string, cachedName](size, nil, ttl), counted: counted}
}

// AliasesOf returns the names known for addresses (and class hashes), one per key at
// most: the one lookup both APIs name things through. With a names cache, only the keys
// it does not hold go to SQL, in one statement, and none when it holds them all.
func (s *Store) AliasesOf(ctx context.Context, addrs []Felt) ([]*Alias, error) {
	c := s.names
	if c == nil {
		return s.aliasesOf(ctx, addrs)
	}
	epoch := namesEpoch.Load()
	var rows []*Alias
	var misses []Felt
	seen := make(map[string]struct{}, len(addrs))
	for _, a := range addrs {
		a = Normalize(a) // as the statement reads it
		key := string(a)
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		if n, ok := c.kept.Get(key); ok && n.epoch == epoch {
			if n.named {
				rows = append(rows, &Alias{Address: a, Name: n.name, Source: n.source})
			}
			continue
		}
		misses = append(misses, a)
	}
	if c.counted != nil {
		c.counted(len(seen)-len(misses), len(misses))
	}
	if len(misses) == 0 {
		return rows, nil
	}
	read, err := s.aliasesOf(ctx, misses)
	if err != nil {
		return nil, err
	}
	named := make(map[string]*Alias, len(read))
	for _, r := range read {
		named[string(r.Address)] = r
	}
	for _, a := range misses {
		n := cachedName{epoch: epoch}
		if r := named[string(a)]; r != nil {
			n.name, n.source, n.named = r.Name, r.Source, true
		}
		c.kept.Add(string(a), n)
	}
	return append(rows, read...), nil
}

// aliasesOf reads the names of addrs.
func (s *Store) aliasesOf(ctx context.Context, addrs []Felt) ([]*Alias, error) {
	var rows []*Alias
	err := s.selectRows(ctx, &rows, namesOf, feltList(addrs))
	return rows, err
}
