// Package answercache keeps the APIs' answers between two changes of the data: an
// explorer's traffic is a crowd asking the same few questions (the latest blocks, a popular
// token, the stats), and between two blocks the answers cannot change. An answer is kept
// for one data version (db.DataChannel: every transaction that writes what answers show
// advances it), so it is never older than the version current when its request arrived.
//
// The cache sits after authentication and rate limiting (every request still counts against
// its key) and before the handlers: Handler. Its key is what determines the answer, the
// route and its parameters or the GraphQL document, operation and variables, never the API
// key (no answer depends on it). Concurrent identical requests at a version wait for one
// computation. Memory is bounded in bytes (Options.MaxBytes), answers above MaxEntry are
// served but not kept, and mutations, subscriptions and errors are never kept.
package answercache

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// An answer is a response as the handler wrote it.
type answer struct {
	status  int
	header  map[string][]string
	body    []byte
	version Version
	size    int64
}

// Version is what an answer is valid for: the database's data version and this process's
// own epoch (bumped by Invalidate, for what changes outside the database).
type Version struct {
	Data, Epoch int64
}

// store is a least-recently-used map of answers bounded in bytes.
type store struct {
	mu      sync.Mutex
	lru     *simplelru.LRU[string, *answer]
	bytes   int64
	max     int64
	evicted func()
}

func newStore(maxBytes int64, evicted func()) *store {
	s := &store{max: maxBytes, evicted: evicted}
	// The count bound is the byte bound's business; the LRU only orders.
	s.lru, _ = simplelru.NewLRU[string, *answer](1<<30, func(_ string, a *answer) { s.bytes -= a.size })
	return s
}

// get is the answer kept for key at v, or nil. An answer of another version is dropped.
func (s *store) get(key string, v Version) *answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.lru.Get(key)
	if !ok {
		return nil
	}
	if a.version != v {
		s.lru.Remove(key)
		return nil
	}
	return a
}

// put keeps a for key, pushing out the least recently used answers past the byte bound.
func (s *store) put(key string, a *answer) {
	a.size = int64(len(key) + len(a.body) + 256) // the entry's own structures, roughly
	for k, vs := range a.header {
		a.size += int64(len(k))
		for _, v := range vs {
			a.size += int64(len(v))
		}
	}
	if a.size > s.max {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lru.Remove(key) // its bytes given back (Add would replace it without telling)
	s.lru.Add(key, a)
	s.bytes += a.size
	for s.bytes > s.max {
		if _, _, ok := s.lru.RemoveOldest(); !ok {
			break
		}
		if s.evicted != nil {
			s.evicted()
		}
	}
}

// size is the bytes held.
func (s *store) size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes
}
