package db

// DataChannel is the NOTIFY channel on which every transaction that writes a table the APIs
// read announces, when it commits, that what answers show changed (migration 00058): the
// indexer's batches (with the node's head, L1 acceptance and balances read by calls learnt
// since the previous one: indexer/sidewrites.go), reorgs, labels, figures and analytics
// passes, verification results. The answer cache counts these notices as its data version.
const DataChannel = "starkgraph_data"
