package api

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// maxCachedDocument is the longest document the parsed-query and persisted-query caches
// keep, in bytes. Any document up to --max-body can be sent, and one long string literal
// keeps it under the token limit: 1,000 of them at 1 MiB each, all different, would
// hold a gigabyte in the caches. Longer documents are parsed again on each use.
const maxCachedDocument = 16 << 10

// smallOnly is a cache that keeps only entries of at most max bytes (size tells).
type smallOnly[T any] struct {
	graphql.Cache[T]
	size func(key string, v T) int
	max  int
}

func (c smallOnly[T]) Add(ctx context.Context, key string, v T) {
	if c.size(key, v) <= c.max {
		c.Cache.Add(ctx, key, v)
	}
}
