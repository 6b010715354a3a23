package db

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The felt dictionary (migration 00045). A few thousand addresses (tokens, busy accounts,
// the sequencer) fill most rows of the derived tables. Stored as bytea an address costs 33
// bytes in every row and every index entry that names it; as an id into felt_ids, 4. The
// tables that use it keep a *_id column where they held the felt, and their statements
// find the id with `(SELECT id FROM felt_ids WHERE felt = $1)`: one probe of felt_ids_felt
// per statement, none per row.
//
// Ids are assigned in statements of their own, committed at once, before a batch writes
// its rows: a batch that is rolled back leaves ids nothing uses, which costs nothing,
// and the ids are there for every connection that writes the batch (beside.go).

// feltID is the SQL that reads the id of the felt expr holds: NULL, which matches no row,
// for a felt never stored.
func feltID(expr string) string { return "(SELECT id FROM felt_ids WHERE felt = " + expr + ")" }

// FeltIDs is the indexer's cache of felt_ids: felt (its column form) -> id. Ids are never
// changed nor removed, so an entry never goes stale.
type FeltIDs struct {
	mu  sync.Mutex
	ids map[string]int32
}

// maxCachedFeltIDs bounds the cache (about 100 bytes an entry). On mainnet the hot
// addresses come back batch after batch; the long tail is looked up when it does.
const maxCachedFeltIDs = 1 << 18

// NewFeltIDs is an empty cache.
func NewFeltIDs() *FeltIDs { return &FeltIDs{ids: map[string]int32{}} }

// IDs gives each felt's id, assigning the new ones. The result is keyed by the felts'
// column form (Normalize).
func (c *FeltIDs) IDs(ctx context.Context, pool sqlx.QueryerContext, felts []Felt) (map[string]int32, error) {
	out := make(map[string]int32, len(felts))
	var missing pq.ByteaArray
	c.mu.Lock()
	for _, f := range felts {
		k := string(Normalize(f))
		if _, done := out[k]; done {
			continue
		}
		if id, ok := c.ids[k]; ok {
			out[k] = id
			continue
		}
		out[k] = 0
		missing = append(missing, []byte(k))
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	found, err := assignFeltIDs(ctx, pool, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ids)+len(found) > maxCachedFeltIDs {
		c.ids = map[string]int32{}
	}
	for k, id := range found {
		out[k] = id
		c.ids[k] = id
	}
	return out, nil
}

// assignFeltIDs reads the ids of felts, inserting those felt_ids lacks, in one statement.
// The statement's own snapshot does not see a row that a concurrent writer inserted
// between its start and its insert (ON CONFLICT skips it): a second statement reads those.
func assignFeltIDs(ctx context.Context, pool sqlx.QueryerContext, felts pq.ByteaArray) (map[string]int32, error) {
	type idRow struct {
		ID   int32  `db:"id"`
		Felt []byte `db:"felt"`
	}
	found := make(map[string]int32, len(felts))
	for attempt := 0; attempt < 2 && len(found) < len(felts); attempt++ {
		var rows []idRow
		err := sqlx.SelectContext(ctx, pool, &rows, `WITH asked AS (SELECT DISTINCT felt FROM unnest($1::bytea[]) AS a(felt)),
			known AS (SELECT f.id, f.felt FROM felt_ids f JOIN asked USING (felt)),
			added AS (INSERT INTO felt_ids (felt) SELECT felt FROM asked WHERE felt NOT IN (SELECT felt FROM known)
				ON CONFLICT (felt) DO NOTHING RETURNING id, felt)
			SELECT id, felt FROM known UNION ALL SELECT id, felt FROM added`, felts)
		if err != nil {
			return nil, fmt.Errorf("assign felt ids: %w", err)
		}
		for _, r := range rows {
			found[string(r.Felt)] = r.ID
		}
	}
	if len(found) < len(felts) {
		return nil, fmt.Errorf("assign felt ids: %d of %d felts have no id", len(felts)-len(found), len(felts))
	}
	return found, nil
}

// assignIDs fills the *_id columns of the rows that name felts by id.
func (r *ChainRows) assignIDs(ctx context.Context, tx *WriteTx) error {
	if len(r.BalancePoints) == 0 {
		return nil
	}
	felts := make([]Felt, 0, 2*len(r.BalancePoints))
	for _, p := range r.BalancePoints {
		felts = append(felts, p.Token, p.Owner)
	}
	ids, err := tx.feltIDs().IDs(ctx, tx.pool, felts)
	if err != nil {
		return err
	}
	for i := range r.BalancePoints {
		p := &r.BalancePoints[i]
		p.TokenID, p.OwnerID = ids[string(Normalize(p.Token))], ids[string(Normalize(p.Owner))]
	}
	return nil
}
