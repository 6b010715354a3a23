package db

import (
	"context"
	"database/sql"
	"fmt"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The felt dictionary (migrations 00045-00048, 00052). A few thousand addresses (tokens,
// busy accounts, the sequencer) and a few dozen selectors fill most rows of the per-block
// tables. Stored as bytea a felt costs 33 bytes in every row and every index entry that
// names it; as an id into felt_ids, 4. transactions, erc20_balance_changes,
// token_transfers, events and calls keep a *_id column where they held the felt. Their
// statements find an id with feltID (one probe of felt_ids_felt per statement, none per
// row), and the Store fills in the felts of the rows it read from its own cache of
// felt_ids (feltsOf).
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
	ids *lru.Cache[string, int32]
}

// maxCachedFeltIDs bounds each cache of felt_ids (about 100 bytes an entry). On mainnet
// the hot addresses come back batch after batch and page after page; the long tail is
// looked up when it does.
const maxCachedFeltIDs = 1 << 18

// NewFeltIDs is an empty cache.
func NewFeltIDs() *FeltIDs {
	ids, _ := lru.New[string, int32](maxCachedFeltIDs) // errors only for a size below 1
	return &FeltIDs{ids: ids}
}

// IDs gives each felt's id, assigning the new ones. The result is keyed by the felts'
// column form (Normalize).
func (c *FeltIDs) IDs(ctx context.Context, pool sqlx.QueryerContext, felts []Felt) (map[string]int32, error) {
	out := make(map[string]int32, len(felts))
	var missing pq.ByteaArray
	for _, f := range felts {
		k := string(Normalize(f))
		if _, done := out[k]; done {
			continue
		}
		id, ok := c.ids.Get(k)
		out[k] = id
		if !ok {
			missing = append(missing, []byte(k))
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	found, err := assignFeltIDs(ctx, pool, missing)
	if err != nil {
		return nil, err
	}
	for k, id := range found {
		out[k] = id
		c.ids.Add(k, id)
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

// storedForms sets the columns that store the rows' values in another form than they
// hold them: the events' lists (foldTransferEvents), and the felt ids.
func (r *ChainRows) storedForms(ctx context.Context, tx *WriteTx) error {
	r.foldTransferEvents()
	return r.assignIDs(ctx, tx)
}

// assignIDs fills the *_id columns of the rows that name felts by id.
func (r *ChainRows) assignIDs(ctx context.Context, tx *WriteTx) error {
	var felts []Felt
	var dst []*int32
	named := func(f Felt, id *int32) { felts, dst = append(felts, f), append(dst, id) }
	optional := func(f Felt, id **int32) {
		*id = nil
		if f != nil {
			*id = new(int32)
			named(f, *id)
		}
	}
	for i := range r.Transactions {
		t := &r.Transactions[i]
		optional(t.SenderAddress, &t.SenderID)
		optional(t.ContractAddress, &t.ContractID)
		optional(t.ClassHash, &t.ClassID)
	}
	for i := range r.BalancePoints {
		p := &r.BalancePoints[i]
		named(p.Token, &p.TokenID)
		named(p.Owner, &p.OwnerID)
	}
	for i := range r.TokenTransfers {
		t := &r.TokenTransfers[i]
		named(t.TokenAddress, &t.TokenID)
		named(t.FromAddress, &t.FromID)
		named(t.ToAddress, &t.ToID)
	}
	for i := range r.Events {
		e := &r.Events[i]
		named(e.FromAddress, &e.FromID)
		e.Key0ID = nil
		if len(e.Keys) > 0 {
			e.Key0ID = new(int32)
			named(e.Keys[0], e.Key0ID)
		}
	}
	for i := range r.Calls {
		c := &r.Calls[i]
		named(c.ContractAddress, &c.ContractID)
		named(c.Selector, &c.SelectorID)
		optional(c.ClassHash, &c.ClassID)
	}
	if len(felts) == 0 {
		return nil
	}
	ids, err := tx.feltIDs().IDs(ctx, tx.pool, felts)
	if err != nil {
		return err
	}
	for i, f := range felts {
		*dst[i] = ids[string(Normalize(f))]
	}
	return nil
}

// newFeltsByID is the reading side's cache of felt_ids: id -> felt. A page's rows read
// their ids and get the felts from here, so that no statement joins felt_ids row by row:
// the few thousand addresses of the busy rows stay cached, and the others cost one
// statement for a page's misses.
func newFeltsByID() *lru.Cache[int32, Felt] {
	c, _ := lru.New[int32, Felt](maxCachedFeltIDs) // errors only for a size below 1
	return c
}

// feltsOf gives the felt of each id, reading those not cached in one statement.
func (s *Store) feltsOf(ctx context.Context, ids []int32) (map[int32]Felt, error) {
	out := make(map[int32]Felt, len(ids))
	var missing pq.Int32Array
	for _, id := range ids {
		if _, done := out[id]; done {
			continue
		}
		f, ok := s.feltsByID.Get(id)
		out[id] = f
		if !ok {
			missing = append(missing, id)
		}
	}
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
	for _, r := range rows {
		s.feltsByID.Add(r.ID, r.Felt)
		out[r.ID] = r.Felt
	}
	return out, nil
}

// feltRefs pairs the felt ids a page's rows hold with the fields their felts go to.
type feltRefs struct {
	ids []int32
	dst []*Felt
}

func (r *feltRefs) add(id int32, dst *Felt) { r.ids, r.dst = append(r.ids, id), append(r.dst, dst) }

// fillFelts sets each field of refs to the felt of its id.
func (s *Store) fillFelts(ctx context.Context, refs feltRefs) error {
	if len(refs.ids) == 0 {
		return nil
	}
	felts, err := s.feltsOf(ctx, refs.ids)
	if err != nil {
		return err
	}
	for i, d := range refs.dst {
		*d = felts[refs.ids[i]]
	}
	return nil
}

// nameTransfers fills in the addresses of transfers read with their ids alone.
func (s *Store) nameTransfers(ctx context.Context, rows []*TokenTransfer) error {
	var refs feltRefs
	for _, r := range rows {
		refs.add(r.TokenID, &r.TokenAddress)
		refs.add(r.FromID, &r.FromAddress)
		refs.add(r.ToID, &r.ToAddress)
	}
	return s.fillFelts(ctx, refs)
}

// nameTransactions fills in the senders, contracts and classes of transactions read with
// their ids alone.
func (s *Store) nameTransactions(ctx context.Context, rows []*Transaction) error {
	var refs feltRefs
	for _, r := range rows {
		for _, f := range []struct {
			id  sql.NullInt32
			dst *Felt
		}{{r.SenderID, &r.SenderAddress}, {r.ContractID, &r.ContractAddress}, {r.ClassID, &r.ClassHash}} {
			*f.dst = nil
			if f.id.Valid {
				refs.add(f.id.Int32, f.dst)
			}
		}
	}
	return s.fillFelts(ctx, refs)
}

// nameEvents fills in the emitters, the keys and the data of events read with their ids
// alone, a folded transfer's from its transfer (transfer_events.go).
func (s *Store) nameEvents(ctx context.Context, rows []*Event) error {
	var refs feltRefs
	type felts struct{ key0, from, to Felt }
	named := make([]felts, len(rows))
	for i, r := range rows {
		refs.add(r.FromID, &r.FromAddress)
		if r.Key0ID.Valid {
			refs.add(r.Key0ID.Int32, &named[i].key0)
		}
		if r.TransferLayout.Valid {
			if !r.FoldedFromID.Valid || !r.FoldedToID.Valid || !r.FoldedAmount.Valid {
				return fmt.Errorf("event %d/%d/%d is a folded transfer without its row of token_transfers", r.BlockNumber, r.TxIndex, r.Index)
			}
			refs.add(r.FoldedFromID.Int32, &named[i].from)
			refs.add(r.FoldedToID.Int32, &named[i].to)
		}
	}
	if err := s.fillFelts(ctx, refs); err != nil {
		return err
	}
	for i, r := range rows {
		if layout := r.TransferLayout; layout.Valid {
			var ok bool
			if r.KeysTail, r.Data, ok = transferEventLists(layout.Int16, named[i].from, named[i].to, r.FoldedAmount.String); !ok {
				return fmt.Errorf("event %d/%d/%d: transfer layout %d of amount %q", r.BlockNumber, r.TxIndex, r.Index, layout.Int16, r.FoldedAmount.String)
			}
		}
		r.Keys = r.KeysTail
		if r.Key0ID.Valid {
			r.Keys = append(append(make(FeltArray, 0, 1+len(r.KeysTail)), named[i].key0), r.KeysTail...)
		}
	}
	return nil
}

// nameCalls fills in the contracts, selectors and classes of calls read with their ids
// alone.
func (s *Store) nameCalls(ctx context.Context, rows []*Call) error {
	var refs feltRefs
	for _, r := range rows {
		refs.add(r.ContractID, &r.ContractAddress)
		refs.add(r.SelectorID, &r.Selector)
		r.ClassHash = nil
		if r.ClassID != nil {
			refs.add(*r.ClassID, &r.ClassHash)
		}
	}
	return s.fillFelts(ctx, refs)
}
