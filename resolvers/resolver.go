// Package resolvers implements the GraphQL schema over the store. Reads of children go
// through the request's dataloaders (package loaders), so a nested document costs a few
// statements whatever its page sizes. The REST handler calls the same methods.
package resolvers

import (
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/live"
)

// Resolver is the root of all resolvers.
type Resolver struct {
	Store *db.Store
	// Writes is the primary, for the few writes the APIs make (verification jobs, NFT
	// metadata refreshes) when Store reads a replica; nil: Store.
	Writes *db.Store
	// Live feeds the subscriptions; nil where the process serves none.
	Live *live.Hub
	// Webhooks are the operator's settings of webhooks (webhooks.go).
	Webhooks WebhookSettings
}

// primary is the store the APIs write to.
func (r *Resolver) primary() *db.Store {
	if r.Writes != nil {
		return r.Writes
	}
	return r.Store
}

// maxEventKeys bounds the keys an events subscription matches (Starknet events rarely
// have more than a handful).
const maxEventKeys = 16
