package resolvers

import (
	"context"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/starkgraph/starkgraph/analytics"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/loaders"
)

// holdersNow runs one on-demand snapshot per token at a time.
var holdersNow singleflight.Group

// HoldersOverviewNow is the newest holders snapshot of a verified ERC-20, computed now on
// the primary when the periodic pass (analytics.Run) has not made one yet: a token is
// verified from the moment its row exists (docs/names.md), before the first pass. Nil when
// the token is not a verified ERC-20. The snapshot is read back from the primary, which
// wrote it: a replica behind would not show it, and every request would compute it again.
func (r *Resolver) HoldersOverviewNow(ctx context.Context, token *db.Token) (*db.HoldersOverview, error) {
	ov, err := loaders.For(ctx).TokenHoldersReport.Load(ctx, string(token.Address))()
	if err != nil || ov != nil || !token.IsVerified || token.Standard() != db.StandardERC20 {
		return ov, err
	}
	key := string(db.Normalize(token.Address))
	if _, err, _ := holdersNow.Do(key, func() (any, error) {
		// Shared by the requests waiting meanwhile: the first one leaving ends it for none.
		return nil, analytics.Snapshot(context.WithoutCancel(ctx), r.primary().DB(), token.Address, time.Now())
	}); err != nil {
		return nil, err
	}
	rows, err := r.primary().HoldersOverviewsOf(ctx, []db.Felt{token.Address})
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}
