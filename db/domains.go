package db

import (
	"fmt"
	"math"
	"regexp"
)

// A Domain is the range of an integer a client may send for one kind of value: for the
// kinds compared with columns, the range of the narrowest column the value meets. REST's
// parameters (rest/params.go) and GraphQL's arguments and input fields (the @domain
// directive of schema.graphqls) name their domain here, so that a migration narrowing a
// column changes what the APIs accept in one place. TestDomainsFitTheirColumns walks every
// column a domain's Columns pattern matches in a migrated database and fails when the
// domain is wider than the column's type.
type Domain struct {
	// Name is what an error calls a value of the domain ("a block number").
	Name     string
	Min, Max int64
	// Saturate: a value above Max reads as Max, as for the bound of a range, where a bound
	// past anything stored selects what Max selects (an empty page for a lower bound, the
	// whole list for an upper one). Without it a value above Max is refused.
	Saturate bool
	// Columns matches the names ("table.column") of the columns a value of the domain is
	// compared with; nil for values that meet no column (a page size).
	Columns *regexp.Regexp
}

// The domains. Block numbers are 4-byte in the busiest tables (transactions, events,
// token_transfers: migration 00054), so a block bound is an int4 whatever the wider
// block columns of other tables hold.
var (
	BlockNumbers = Domain{Name: "a block number", Min: 0, Max: math.MaxInt32, Saturate: true,
		Columns: regexp.MustCompile(`^(blocks\.number|[a-z0-9_]+\.(block_number|[a-z0-9_]+_block))$`)}
	UnixTimes = Domain{Name: "a time in Unix seconds", Min: 0, Max: math.MaxInt64, Saturate: true,
		Columns: regexp.MustCompile(`^[a-z0-9_]+\.(timestamp|[a-z0-9_]+_(time|timestamp))$`)}
	PageSizes   = Domain{Name: "a page size", Min: 0, Max: MaxPageSize}
	SearchSizes = Domain{Name: "a number of search results", Min: 1, Max: MaxPageSize}
	RangeDays   = Domain{Name: "a number of days", Min: 1, Max: MaxRangeDays}
	RangeHours  = Domain{Name: "a number of hours", Min: 1, Max: 24}
	// SecretOverlaps are the seconds a webhook's old secret keeps signing after a rotation.
	SecretOverlaps = Domain{Name: "a number of seconds", Min: 0, Max: 7 * 24 * 3600}
)

// MaxPageSize is the most items of a page; MaxRangeDays the longest series of days (ten
// years).
const (
	MaxPageSize  = 100
	MaxRangeDays = 3660
)

// ColumnDomains lists the domains whose values are compared with columns, for the test
// that checks them against the database's types.
var ColumnDomains = []*Domain{&BlockNumbers, &UnixTimes}

// Check reads v in the domain: an error below Min (or above Max without Saturate), Max
// for a value above it with Saturate.
func (d Domain) Check(v int64) (int64, error) {
	switch {
	case v < d.Min && d.Min == 0:
		return 0, fmt.Errorf("must not be negative")
	case v < d.Min || (v > d.Max && !d.Saturate):
		return 0, fmt.Errorf("must be between %d and %d", d.Min, d.Max)
	case v > d.Max:
		return d.Max, nil
	}
	return v, nil
}
