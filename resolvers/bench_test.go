package resolvers_test

import (
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/loaders"
)

// BenchmarkNestedTokensHolders measures the tokens(25) -> holders(10) -> contract -> class
// document with the loaders' batch window as served (2 ms) against a baseline window of
// zero, where each key is fetched on its own as soon as it is asked for (the N+1 pattern
// dataloaders exist to avoid). Both run in the same process on the same database, so the
// ratio of their ns/op and statements/op is what batching buys.
//
//	go test ./resolvers -run '^$' -bench NestedTokensHolders -benchtime 50x
func BenchmarkNestedTokensHolders(b *testing.B) {
	s := newGQLServer(b)
	seedTokens(s, 25, 12)
	vars := map[string]any{"tokens": 25, "holders": 10}

	for _, c := range []struct {
		name string
		wait time.Duration
	}{{"batched-2ms", 2 * time.Millisecond}, {"baseline-unbatched", 0}} {
		b.Run(c.name, func(b *testing.B) {
			saved := loaders.BatchWait
			loaders.BatchWait = c.wait
			defer func() { loaders.BatchWait = saved }()
			before := s.store.Statements()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var out tokensHolders
				s.mustQuery(tokensHoldersDoc, vars, &out)
				if len(out.Tokens.Edges) != 25 {
					b.Fatalf("got %d tokens", len(out.Tokens.Edges))
				}
			}
			b.ReportMetric(float64(s.store.Statements()-before)/float64(b.N), "statements/op")
		})
	}
}
