package db

import (
	"context"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// A filtered list's count reads up to CountCap index entries where its page reads 25: for
// the hottest keys (STRK's half a million events) counting was most of what a page cost,
// for every client on every page. A count that reached countKeptFrom is kept for countTTL,
// and the requests that ask for the same count meanwhile share one run of it. Such a total
// may be countTTL old beside its page, which a client cannot tell from a block arriving
// between two requests; smaller counts cost little and are always fresh.
const (
	countTTL      = 5 * time.Second
	countKeptFrom = 1000
	maxCounts     = 4096
)

type keptCount struct {
	n  int64
	at time.Time
}

type countCache struct {
	kept   *lru.Cache[string, keptCount]
	flight singleflight.Group
}

func newCountCache() *countCache {
	kept, _ := lru.New[string, keptCount](maxCounts) // errors only for a size below 1
	return &countCache{kept: kept}
}

// cappedCount counts the rows of a filtered list up to CountCap.
func (s *Store) cappedCount(ctx context.Context, from string, args ...any) (int64, error) {
	query := fmt.Sprintf(`SELECT count(*) FROM (SELECT 1 FROM %s LIMIT %d) capped`, from, CountCap)
	key := listName(query, args)
	if c, ok := s.counts.kept.Get(key); ok && s.now().Sub(c.at) <= countTTL {
		return c.n, nil
	}
	n, err, _ := s.counts.flight.Do(key, func() (any, error) {
		var n int64
		_, err := s.getRow(context.WithoutCancel(ctx), &n, query, args...)
		if err == nil && n >= countKeptFrom {
			s.counts.kept.Add(key, keptCount{n, s.now()})
		}
		return n, err
	})
	if err != nil {
		return 0, err
	}
	return n.(int64), nil
}
