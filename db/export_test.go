package db

// PricesAtSQL is PricesAt's statement, for its plan's test.
const PricesAtSQL = pricesAtSQL
