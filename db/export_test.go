package db

import "context"

// PricesAtSQL is PricesAt's statement, for its plan's test.
const PricesAtSQL = pricesAtSQL

// SelectRows runs a read as the store's methods do, for the prepared statements' test.
func (s *Store) SelectRows(ctx context.Context, dest any, query string, args ...any) error {
	return s.selectRows(ctx, dest, query, args...)
}

// MaxPrepared bounds the statements kept prepared, for its test.
const MaxPrepared = maxPrepared
