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
	// Live feeds the subscriptions; nil where the process serves none.
	Live *live.Hub
}

// maxEventKeys bounds the keys an events subscription matches (Starknet events rarely
// have more than a handful).
const maxEventKeys = 16
