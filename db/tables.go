package db

// The lists that say how the indexer treats a table; a new table belongs in those that fit
// it, or in the test's list of tables in none (TestEveryTableIsListed, indexer/tables_test.go,
// CONTRIBUTING.md "A table or column").

// JournaledTables are the tables the indexer updates in place, whose old rows the undo
// journal keeps for reorgs (journaledTables).
func JournaledTables() []string {
	names := make([]string, len(journaledTables))
	for i, t := range journaledTables {
		names[i] = t.name
	}
	return names
}

// BulkTables are the per-block tables whose secondary indexes and foreign keys a bulk load
// defers (bulkTables).
func BulkTables() []string { return append([]string(nil), bulkTables...) }

// ChainRowTables are the append-only tables the indexer COPYs from db.ChainRows, which a
// reorg removes by the cascade from their block or transaction.
func ChainRowTables() []string {
	var r ChainRows
	var names []string
	for _, t := range r.tables() {
		names = append(names, t.name)
	}
	return names
}
