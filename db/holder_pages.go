package db

import (
	"context"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Where pages of a token's holders ended. Holders are ordered by balance, which no
// position can be computed from, so a page number skips the holders above its page:
// near the end of a million holders, a page read a million index entries. A client walks
// pages in turn (p=1, 2, 3...), so the store remembers where each page of a single token
// ended, and a page that starts there continues from that holder along the index instead
// (holdersAfter). An end is used for holderPageEndTTL: balances may have moved meanwhile,
// and the page is then the one that follows the page before as it was served, which is
// what a client walking the list wants (nothing seen twice, nothing skipped).
const (
	holderPageEnds   = 4096
	holderPageEndTTL = 30 * time.Second
)

type holderPageKey struct {
	token  string // Felt bytes
	offset int    // the position of the holder after the page
}

// holderPageEnd is the last holder of a page: its balance (decimal) and address.
type holderPageEnd struct {
	balance string
	owner   Felt
	at      time.Time
}

func newHolderPageEnds() *lru.Cache[holderPageKey, holderPageEnd] {
	ends, _ := lru.New[holderPageKey, holderPageEnd](holderPageEnds) // errors only for a size below 1
	return ends
}

// holdersFrom lists token's holders from position offset when a page served lately ended
// there; ok is false otherwise.
func (s *Store) holdersFrom(ctx context.Context, token Felt, limit, offset int) (rows []*TokenBalance, ok bool, err error) {
	end, found := s.holderEnds.Get(holderPageKey{string(token), offset})
	if !found || s.now().Sub(end.at) > holderPageEndTTL {
		return nil, false, nil
	}
	err = s.selectRows(ctx, &rows, `SELECT b.token_address, b.owner_address, b.balance::text AS balance, b.last_transfer_time
		FROM erc20_balances b WHERE b.token_address = $1 AND b.balance > 0
			AND (b.balance, b.owner_address) < ($2::numeric, $3)
		ORDER BY b.balance DESC, b.owner_address DESC LIMIT $4`, token, end.balance, end.owner, limit)
	return rows, true, err
}

// rememberHolderPageEnd notes where a page of token's holders from offset ended: after its
// last row, and after the one before, since callers read a row past their page to learn
// whether another follows (resolvers' pager), and their next page starts at that row.
func (s *Store) rememberHolderPageEnd(token Felt, offset int, rows []*TokenBalance) {
	for i := max(len(rows)-2, 0); i < len(rows); i++ {
		s.holderEnds.Add(holderPageKey{string(token), offset + i + 1}, holderPageEnd{rows[i].Balance, rows[i].OwnerAddress, s.now()})
	}
}

func (s *Store) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}
