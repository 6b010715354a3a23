package resolvers

import (
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// The edges of connection types that several list fields build (see fetchPage).

func newTransactionEdge(cursor string, t *db.Transaction) *model.TransactionEdge {
	return &model.TransactionEdge{Cursor: cursor, Node: t}
}

func newContractEdge(cursor string, c *db.Contract) *model.ContractEdge {
	return &model.ContractEdge{Cursor: cursor, Node: c}
}

func newEventEdge(cursor string, e *db.Event) *model.EventEdge {
	return &model.EventEdge{Cursor: cursor, Node: e}
}

func newNftEventEdge(cursor string, e *db.NftEvent) *model.NftEventEdge {
	return &model.NftEventEdge{Cursor: cursor, Node: e}
}

func newNftBalanceEdge(cursor string, b *db.NftBalance) *model.NftBalanceEdge {
	return &model.NftBalanceEdge{Cursor: cursor, Node: b}
}
