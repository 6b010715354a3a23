package api

import (
	"context"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/handler/lru"
)

// TestCachesKeepOnlySmallDocuments: a document longer than maxCachedDocument is not kept,
// so that documents of a megabyte each cannot fill the caches.
func TestCachesKeepOnlySmallDocuments(t *testing.T) {
	ctx := context.Background()
	c := smallOnly[string]{Cache: lru.New[string](10), max: maxCachedDocument, size: func(_, v string) int { return len(v) }}
	small, big := "{ __typename }", "{ a(x: \""+strings.Repeat("x", maxCachedDocument)+"\") }"
	c.Add(ctx, "small", small)
	c.Add(ctx, "big", big)
	if _, ok := c.Get(ctx, "small"); !ok {
		t.Error("a small document is not kept")
	}
	if _, ok := c.Get(ctx, "big"); ok {
		t.Error("a document over the limit is kept")
	}
}
