package db

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The felt dictionary (migrations 00045-00048). A few thousand addresses (tokens, busy
// accounts, the sequencer) and a few dozen selectors fill most rows of the per-block
// tables. Stored as bytea a felt costs 33 bytes in every row and every index entry that
// names it; as an id into felt_ids, 4. erc20_balance_changes, token_transfers, events and
// calls keep a *_id column where they held the felt. Their statements find an id with
// feltID (one probe of felt_ids_felt per statement, none per row), and the Store fills in
// the felts of the rows it read from its own cache of felt_ids (feltsOf).
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
		// Inserted in order: two writers that insert the same felts in different orders
		// would each wait for the other's uncommitted row (a deadlock).
		err := sqlx.SelectContext(ctx, pool, &rows, `WITH asked AS (SELECT DISTINCT felt FROM unnest($1::bytea[]) AS a(felt)),
			known AS (SELECT f.id, f.felt FROM felt_ids f JOIN asked USING (felt)),
			added AS (INSERT INTO felt_ids (felt) SELECT felt FROM asked WHERE felt NOT IN (SELECT felt FROM known)
				ORDER BY felt ON CONFLICT (felt) DO NOTHING RETURNING id, felt)
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
	if len(r.BalancePoints) == 0 && len(r.TokenTransfers) == 0 && len(r.Events) == 0 && len(r.Calls) == 0 {
		return nil
	}
	felts := make([]Felt, 0, 2*len(r.BalancePoints)+3*len(r.TokenTransfers)+2*len(r.Events)+3*len(r.Calls))
	for _, p := range r.BalancePoints {
		felts = append(felts, p.Token, p.Owner)
	}
	for _, t := range r.TokenTransfers {
		felts = append(felts, t.TokenAddress, t.FromAddress, t.ToAddress)
	}
	for i := range r.Events {
		e := &r.Events[i]
		if len(e.Keys) > 0 {
			e.Key0 = e.Keys[0]
		}
		felts = append(felts, e.FromAddress)
		if e.Key0 != nil {
			felts = append(felts, e.Key0)
		}
	}
	for _, c := range r.Calls {
		felts = append(felts, c.ContractAddress, c.Selector)
		if c.ClassHash != nil {
			felts = append(felts, c.ClassHash)
		}
	}
	ids, err := tx.feltIDs().IDs(ctx, tx.pool, felts)
	if err != nil {
		return err
	}
	id := func(f Felt) int32 { return ids[string(Normalize(f))] }
	for i := range r.BalancePoints {
		p := &r.BalancePoints[i]
		p.TokenID, p.OwnerID = id(p.Token), id(p.Owner)
	}
	for i := range r.TokenTransfers {
		t := &r.TokenTransfers[i]
		t.TokenID, t.FromID, t.ToID = id(t.TokenAddress), id(t.FromAddress), id(t.ToAddress)
	}
	for i := range r.Events {
		e := &r.Events[i]
		e.FromID, e.Key0ID = id(e.FromAddress), nil
		if e.Key0 != nil {
			k := id(e.Key0)
			e.Key0ID = &k
		}
	}
	for i := range r.Calls {
		c := &r.Calls[i]
		c.ContractID, c.SelectorID, c.ClassID = id(c.ContractAddress), id(c.Selector), nil
		if c.ClassHash != nil {
			k := id(c.ClassHash)
			c.ClassID = &k
		}
	}
	return nil
}

// feltsByID is the reading side's cache of felt_ids: id -> felt. A page's rows read their
// ids and get the felts from here, so that no statement joins felt_ids row by row: the few
// thousand addresses of the busy rows stay cached, and the others cost one statement for
// a page's misses.
type feltsByID struct {
	mu    sync.RWMutex
	felts map[int32]Felt
}

func newFeltsByID() *feltsByID { return &feltsByID{felts: map[int32]Felt{}} }

// feltsOf gives the felt of each id, reading those not cached in one statement.
func (s *Store) feltsOf(ctx context.Context, ids []int32) (map[int32]Felt, error) {
	c := s.feltsByID
	out := make(map[int32]Felt, len(ids))
	var missing pq.Int32Array
	c.mu.RLock()
	for _, id := range ids {
		if _, done := out[id]; done {
			continue
		}
		f, ok := c.felts[id]
		out[id] = f
		if !ok {
			missing = append(missing, id)
		}
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return out, nil
	}
	var rows []struct {
		ID   int32 `db:"id"`
		Felt Felt  `db:"felt"`
	}
	if err := s.selectRows(ctx, &rows, `SELECT id, felt FROM felt_ids WHERE id = ANY($1::int[])`, missing); err != nil {
		return nil, err
	}
	if len(rows) < len(missing) {
		return nil, &StoreError{Query: "felt ids", Err: fmt.Errorf("%d of %d felt ids are not in felt_ids", len(missing)-len(rows), len(missing))}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.felts)+len(rows) > maxCachedFeltIDs {
		c.felts = map[int32]Felt{}
	}
	for _, r := range rows {
		c.felts[r.ID], out[r.ID] = r.Felt, r.Felt
	}
	return out, nil
}

// nameTransfers fills in the addresses of transfers read with their ids alone.
func (s *Store) nameTransfers(ctx context.Context, rows []*TokenTransfer) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]int32, 0, 3*len(rows))
	for _, r := range rows {
		ids = append(ids, r.TokenID, r.FromID, r.ToID)
	}
	felts, err := s.feltsOf(ctx, ids)
	if err != nil {
		return err
	}
	for _, r := range rows {
		r.TokenAddress, r.FromAddress, r.ToAddress = felts[r.TokenID], felts[r.FromID], felts[r.ToID]
	}
	return nil
}

// nameEvents fills in the emitters of events read with their ids alone.
func (s *Store) nameEvents(ctx context.Context, rows []*Event) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]int32, len(rows))
	for i, r := range rows {
		ids[i] = r.FromID
	}
	felts, err := s.feltsOf(ctx, ids)
	if err != nil {
		return err
	}
	for _, r := range rows {
		r.FromAddress = felts[r.FromID]
	}
	return nil
}

// nameCalls fills in the contracts, selectors and classes of calls read with their ids
// alone.
func (s *Store) nameCalls(ctx context.Context, rows []*Call) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]int32, 0, 3*len(rows))
	for _, r := range rows {
		ids = append(ids, r.ContractID, r.SelectorID)
		if r.ClassID != nil {
			ids = append(ids, *r.ClassID)
		}
	}
	felts, err := s.feltsOf(ctx, ids)
	if err != nil {
		return err
	}
	for _, r := range rows {
		r.ContractAddress, r.Selector, r.ClassHash = felts[r.ContractID], felts[r.SelectorID], nil
		if r.ClassID != nil {
			r.ClassHash = felts[*r.ClassID]
		}
	}
	return nil
}
