// Package indexer follows a Starknet JSON-RPC node and writes the chain into PostgreSQL: the
// raw facts of each block and everything derived from them, in one SQL transaction per block
// (or per batch of blocks while catching up), so that the database always stands at a block
// boundary. It fetches ahead concurrently in JSON-RPC batches, writes strictly in order,
// follows reorgs back to the common ancestor and records finality changes. Contracts met
// without their deployment (started with --from-block) are looked up on the node
// (lookup.go, missing.go), and proxies' implementations read when they are written.
package indexer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Config says which node to follow and how.
type Config struct {
	RPCURL string
	// DB is the store. The indexer keeps one of its connections for the writer lock, so the
	// pool must allow at least two (database/sql allows any number by default).
	DB            *sqlx.DB
	FromBlock     int64 // first block to index into an empty database
	StopAt        int64 // exit once this block is written; -1 follows forever
	MaxReorgDepth int   // deepest reorg followed; default 64
	Logger        *slog.Logger
	Progress      bool // draw a progress bar (on a terminal) instead of log lines
	Concurrency   int  // block ranges fetched at once; default 4
	BatchSize     int  // blocks per JSON-RPC batch and per SQL transaction while catching up; default 20
	// BulkLoadMinBlocks is the shortest catch-up written as a bulk load (bulk.go), which
	// must also be at least as long as the chain already indexed; default 1000, negative
	// for never.
	BulkLoadMinBlocks int64
	// BulkLoadBalances is how many ERC-20 balances and key counts a bulk load keeps in memory
	// between its batches (bulk.go; about 200 bytes each): past it, the tables it defers are
	// written up to the head and the memory emptied. Default 2,000,000.
	BulkLoadBalances int

	// PollInterval is how often the node is asked for new blocks once caught up, and how
	// often a waiting indexer tries the writer lock; default 2s.
	PollInterval time.Duration
	// FinalityInterval is how often finality is checked while following; default 5s.
	FinalityInterval time.Duration
	// LockID is the PostgreSQL advisory lock key that elects the one writer.
	LockID int64
	// Figures names the contracts staking figures and prices are read from.
	Figures FiguresConfig
	// NoReconcile leaves ERC-20 balances as the Transfer events tell, without comparing
	// them with the storage diffs of the state updates (reconcile.go).
	NoReconcile bool
	// BalanceCallsPerSecond bounds the balance_of calls made, once caught up, to read the
	// balances that neither events nor storage show (callbalances.go); default 20, negative:
	// none.
	BalanceCallsPerSecond float64
	// OnCatchUp, when set, is told of every range a catch-up wrote, once it is committed,
	// and of the rebuild that ends a bulk load (the bench draws the rate's curve from it).
	OnCatchUp func(CatchUpEvent)
}

// CatchUpEvent is a range of blocks a catch-up committed (Last, Txs), or the rebuild of the
// indexes and keys that ended a bulk load (Rebuilt, its duration).
type CatchUpEvent struct {
	Last    int64
	Txs     int
	Rebuilt time.Duration
}

// maxResponseBytes bounds what a node may send in answer to one batch.
const maxResponseBytes = 512 << 20

// DefaultLockID is the advisory lock key of the indexer ("stkgraph" in ASCII).
const DefaultLockID int64 = 0x73746b6772617068

// Indexer follows one node into one database.
type Indexer struct {
	cfg     Config
	db      *sqlx.DB
	node    *rpc.Client
	log     *slog.Logger
	classes *classCache
	lookup  *contractLookup
	// slots reads ERC-20 balance slots back to their owners; nil with Config.NoReconcile.
	slots *slotIndex
	// calls reads the balances storage cannot show (callbalances.go).
	calls *callReader
	// tokenMeta holds the name, symbol and decimals fetched for tokens.
	tokenMeta *tokenMetaCache
	// figures is where chain figures come from, resolved for the node's chain at handshake.
	figures *figureSources

	chainID, specVersion string
	head                 int64 // newest written block, -1 when none
	nodeHeadSeen         uint64
	lastFinality         time.Time
	// preConfirmed is the block being built as last announced; preConfirmedRetry is when
	// to ask a node that could not tell again.
	preConfirmed      db.PreConfirmedNotice
	preConfirmedRetry time.Time
	progress          *progress
	oneByOne          bool // single-row INSERTs instead of COPY (benchmark baseline)
	// constraintsDeferred is set while a bulk load (bulk.go) has the per-block tables'
	// secondary indexes and foreign keys dropped, or may have: Run starts by asking.
	constraintsDeferred bool
	// bulk is what a bulk load keeps in memory of the tables it defers (bulk.go); nil
	// otherwise.
	bulk *bulkMemory
	// besideClean is set once a batch committed both its transactions (db/beside.go): the
	// next one need not look for rows left above the head.
	besideClean   bool
	writeTxTarget int // defaultWriteTxTarget; tests lower it
	// partitions makes the block partitions (db.PartitionedTables) ahead of the writes.
	partitions db.Partitions
	// felts caches the felt ids the rows are written with (db/felt_ids.go).
	felts *db.FeltIDs
	// side holds what the indexer learnt besides blocks until a block's transaction
	// writes it, or sideHold passed (sidewrites.go).
	side     sideWrites
	sideHold time.Duration
}

// New checks the configuration; Run does the work.
func New(cfg Config) (*Indexer, error) {
	if cfg.RPCURL == "" {
		return nil, errors.New("indexer: no RPC URL")
	}
	if cfg.DB == nil {
		return nil, errors.New("indexer: no database")
	}
	if cfg.FromBlock < 0 {
		return nil, errors.New("indexer: --from-block must not be negative")
	}
	if cfg.StopAt >= 0 && cfg.StopAt < cfg.FromBlock {
		return nil, fmt.Errorf("indexer: --stop-at %d is below --from-block %d", cfg.StopAt, cfg.FromBlock)
	}
	if cfg.MaxReorgDepth <= 0 {
		cfg.MaxReorgDepth = 64
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 20
	}
	if cfg.BulkLoadMinBlocks == 0 {
		cfg.BulkLoadMinBlocks = defaultBulkLoadMinBlocks
	}
	if cfg.BulkLoadBalances <= 0 {
		cfg.BulkLoadBalances = defaultBulkLoadBalances
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 2 * time.Second
	}
	if cfg.FinalityInterval <= 0 {
		cfg.FinalityInterval = 5 * time.Second
	}
	if cfg.LockID == 0 {
		cfg.LockID = DefaultLockID
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	node := rpc.NewClient(cfg.RPCURL, rpc.WithMaxResponseBytes(maxResponseBytes))
	log := cfg.Logger.With("component", "indexer")
	ix := &Indexer{cfg: cfg, db: cfg.DB, node: node, log: log,
		classes: newClassCache(), lookup: newContractLookup(node, log), tokenMeta: newTokenMetaCache(), head: -1,
		writeTxTarget: defaultWriteTxTarget, partitions: db.Partitions{Log: log}, felts: db.NewFeltIDs()}
	if !cfg.NoReconcile {
		ix.slots = processSlots
	}
	rate := cfg.BalanceCallsPerSecond
	if rate == 0 {
		rate = defaultBalanceCallsPerSecond
	}
	ix.calls = newCallReader(rate)
	ix.sideHold = sideHoldPolls * cfg.PollInterval
	return ix, nil
}

// Run indexes until ctx ends (nil), or, with StopAt set, until that block is written (nil).
// Errors from the node or the database are logged and retried with backoff; Run returns an
// error only for what retrying cannot fix.
func (ix *Indexer) Run(ctx context.Context) error {
	lock, err := ix.acquireLock(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer func() {
		// The lock belongs to the session, which outlives Close in the pool: release it,
		// or the next indexer on this pool could wait for good on an idle connection.
		_, _ = lock.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, ix.cfg.LockID)
		lock.Close()
	}()

	if err := ix.handshake(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	// A bulk load that did not finish left its constraints out; step resumes or ends it.
	// Until this is known, assume it did.
	ix.constraintsDeferred = true
	bo := newBackoff()
	for ctx.Err() == nil {
		// The lock lives as long as its connection: if that broke, another indexer may
		// hold the lock now, so take it again before writing anything more.
		if err := lock.PingContext(ctx); err != nil {
			lock.Close()
			ix.log.Warn("lost the indexer lock's connection; taking the lock again", "err", err)
			if lock, err = ix.acquireLock(ctx); err != nil {
				return nil // only ctx ending stops acquireLock
			}
		}
		done, err := ix.step(ctx)
		switch {
		case done:
			ix.progress.finish()
			return nil
		case ctx.Err() != nil:
			return nil
		case err != nil:
			ix.classes.reset()
			ix.tokenMeta.reset()
			wait := bo.next()
			ix.log.Warn("indexing failed; retrying", "err", err, "head", ix.head, "retry_in", wait)
			sleep(ctx, wait)
		default:
			bo.reset()
		}
	}
	return nil
}

// acquireLock holds a session advisory lock on a dedicated connection for as long as the
// indexer runs: only the holder writes. Other indexers wait here for it to be released.
func (ix *Indexer) acquireLock(ctx context.Context) (*sql.Conn, error) {
	logged := false
	for {
		conn, err := ix.db.Conn(ctx)
		if err == nil {
			var ok bool
			err = conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, ix.cfg.LockID).Scan(&ok)
			if err == nil && ok {
				return conn, nil
			}
			conn.Close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			ix.log.Warn("cannot take the indexer lock; retrying", "err", err)
		} else if !logged {
			ix.log.Info("another indexer holds the lock; waiting to take over")
			logged = true
		}
		sleep(ctx, ix.cfg.PollInterval)
	}
}

// handshake learns the node's spec version and chain, retrying until the node answers: an
// indexer started before its node waits for it (indexer_node_up 0 meanwhile).
func (ix *Indexer) handshake(ctx context.Context) error {
	bo := newBackoff()
	for {
		err := ix.tryHandshake(ctx)
		noteNodeAnswer(err)
		if err == nil || ctx.Err() != nil {
			return err
		}
		var unsupported errUnsupported
		if errors.As(err, &unsupported) {
			return err
		}
		wait := bo.next()
		args := []any{"err", err, "retry_in", wait}
		var httpErr *rpc.HTTPError
		if errors.As(err, &httpErr) && httpErr.StatusCode >= 400 && httpErr.StatusCode < 500 {
			args = append(args, "hint", "is --rpc a Starknet JSON-RPC URL (for example http://host:9545/rpc/v0_8)?")
		}
		ix.log.Warn("node handshake failed; retrying", args...)
		sleep(ctx, wait)
	}
}

type errUnsupported string

func (e errUnsupported) Error() string { return string(e) }

func (ix *Indexer) tryHandshake(ctx context.Context) error {
	spec, err := ix.node.SpecVersion(ctx)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(spec, "0.8") && !strings.HasPrefix(spec, "0.9") && !strings.HasPrefix(spec, "0.10") {
		return errUnsupported(fmt.Sprintf("indexer: node speaks JSON-RPC %.40q; 0.8, 0.9 or 0.10 is needed", spec))
	}
	chainID, err := ix.node.ChainID(ctx)
	if err != nil {
		return err
	}
	chain := chainID.Hex()
	figures, err := resolveFigures(chain, ix.cfg.Figures)
	if err != nil {
		return errUnsupported(err.Error())
	}
	ix.specVersion, ix.chainID, ix.figures = spec, chain, figures
	ix.log.Info("following node", "spec_version", spec, "chain_id", chain)
	return nil
}

// step makes one round: learn the node's head, write what is missing up to it (or StopAt),
// and update finality. It reports done when StopAt is written.
func (ix *Indexer) step(ctx context.Context) (done bool, err error) {
	head, hash, ok, err := db.IndexedHead(ctx, ix.db)
	if err != nil {
		return false, fmt.Errorf("read head: %w", err)
	}
	ix.head = -1
	if ok {
		ix.head = head
	}
	if ix.cfg.StopAt >= 0 && ix.head >= ix.cfg.StopAt {
		return true, nil
	}
	nodeHead, err := ix.nodeHead(ctx)
	noteNodeAnswer(err)
	if err != nil {
		return false, err
	}
	ix.noteNodeHead(ctx, nodeHead)
	next := ix.cfg.FromBlock
	if ok {
		next = head + 1
	}
	target := int64(nodeHead)
	if ix.cfg.StopAt >= 0 && ix.cfg.StopAt < target {
		target = ix.cfg.StopAt
	}
	end, bulk := ix.bulkLoadEnd(next, target)
	if bulk {
		return false, ix.bulkLoad(ctx, next, end, hash, ok)
	}
	if err := ix.restoreConstraints(ctx); err != nil {
		return false, err
	}
	if next <= target {
		if err := ix.catchUp(ctx, next, target, hash, ok); err != nil {
			return false, err
		}
	}
	if err := ix.updateFinality(ctx); err != nil {
		ix.log.Warn("finality update failed", "err", err)
	}
	if next > target && ok {
		ix.notePreConfirmed(ctx, head, hash)
		if err := ix.readCallBalances(ctx); err != nil {
			ix.log.Warn("reading balances by calls failed", "err", err)
		}
	}
	if err := ix.flushSide(ctx); err != nil {
		ix.log.Warn("recording the node head, L1 acceptance or balances read by calls failed", "err", err)
	}
	if ix.cfg.StopAt >= 0 && ix.head >= ix.cfg.StopAt {
		return true, nil
	}
	if next > target {
		sleep(ctx, ix.cfg.PollInterval)
	}
	return false, nil
}

// noteNodeAnswer sets indexer_node_up after a call to the node (a stop is not a failure).
func noteNodeAnswer(err error) {
	switch {
	case err == nil:
		metrics.IndexerNodeUp.Set(1)
	case !errors.Is(err, context.Canceled):
		metrics.IndexerNodeUp.Set(0)
	}
}

func (ix *Indexer) noteNodeHead(ctx context.Context, nodeHead uint64) {
	ix.nodeHeadSeen = nodeHead
	// Recorded with the next block's transaction, or on its own after this step
	// (sidewrites.go): not on every poll, which would be a data version each.
	ix.side.nodeSeen = nodeRecord{head: int64(nodeHead), chainID: ix.chainID, specVersion: ix.specVersion}
	indexed := uint64(0)
	if ix.head > 0 {
		indexed = uint64(ix.head)
	}
	metrics.SetIndexerHeads(indexed, nodeHead)
}

// catchUp writes blocks next..target, fetching ahead concurrently and writing in order.
func (ix *Indexer) catchUp(ctx context.Context, next, target int64, headHash db.Felt, haveHead bool) error {
	fetchCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := ix.fetchAhead(fetchCtx, uint64(next), uint64(target), ix.nodeHeadSeen)
	ix.progress = ix.progress.start(ix, next, target)
	// pending is a fetched batch not written yet; nil once results are drained.
	var pending []*blockData
	take := func() (blocks []*blockData, more bool) {
		if pending != nil {
			blocks, pending = pending, nil
			return blocks, true
		}
		r, ok := <-results
		if !ok {
			return nil, false
		}
		return <-r, true
	}
	for {
		blocks, more := take()
		if !more {
			return nil
		}
		if blocks == nil {
			return ctx.Err() // fetches end with nil only when ctx ends
		}
		// The first block must sit on the indexed head; if not, the node's chain moved.
		if first := blocks[0].Block; haveHead && !headHash.Equal(db.FeltOf(first.ParentHash)) {
			cancel()
			return ix.handleReorg(ctx, int64(first.Number)-1)
		}
		// Far from the head, batches that follow on go into the same SQL transaction up to
		// ix.writeTxTarget transactions: fewer, larger statements for the same rows.
		for countTx(blocks) < ix.writeTxTarget && !ix.journaled(int64(blocks[len(blocks)-1].Block.Number)+1) {
			following, more := take()
			if !more {
				break
			}
			if following == nil {
				return ctx.Err()
			}
			if following[0].Block.ParentHash != blocks[len(blocks)-1].Block.Hash {
				pending = following // written (or found reorganised) on its own
				break
			}
			blocks = append(blocks, following...)
		}
		if err := ix.writeBlocks(ctx, blocks); err != nil {
			return err
		}
		last := blocks[len(blocks)-1].Block
		headHash, haveHead = db.FeltOf(last.Hash), true
		ix.progress.add(ix, len(blocks), countTx(blocks))
		if ix.cfg.OnCatchUp != nil {
			ix.cfg.OnCatchUp(CatchUpEvent{Last: int64(last.Number), Txs: countTx(blocks)})
		}
	}
}

// defaultWriteTxTarget is how many transactions the indexer gathers into one SQL
// transaction while catching up, from as many fetched batches as that takes: measured
// with the bench, 12,000 writes 7-15% faster than one batch of 20 blocks of 200.
const defaultWriteTxTarget = 12_000

func countTx(blocks []*blockData) int {
	n := 0
	for _, b := range blocks {
		n += len(b.Block.Transactions)
	}
	return n
}

// fetchAhead fetches the range in batches, Concurrency at a time, and hands the results
// over in block order. Each batch is retried until it arrives intact or ctx ends (then the
// channel gets nil).
func (ix *Indexer) fetchAhead(ctx context.Context, from, to, nodeHead uint64) <-chan chan []*blockData {
	out := make(chan chan []*blockData, ix.cfg.Concurrency)
	go func() {
		defer close(out)
		for start := from; start <= to; {
			end := min(start+uint64(ix.cfg.BatchSize)-1, to)
			// Near the head, blocks are written (and so fetched) one at a time.
			if int64(start) > int64(nodeHead)-int64(ix.cfg.MaxReorgDepth) {
				end = start
			}
			res := make(chan []*blockData, 1)
			select {
			case out <- res:
			case <-ctx.Done():
				return
			}
			go func(s, e uint64) { res <- ix.fetchWithRetry(ctx, s, e) }(start, end)
			start = end + 1
		}
	}()
	return out
}

func (ix *Indexer) fetchWithRetry(ctx context.Context, from, to uint64) []*blockData {
	bo := newBackoff()
	for {
		blocks, err := ix.fetchRange(ctx, from, to)
		if err == nil {
			return blocks
		}
		if ctx.Err() != nil {
			return nil
		}
		wait := bo.next()
		ix.log.Warn("fetch failed; retrying", "from", from, "to", to, "err", err, "retry_in", wait)
		if !sleep(ctx, wait) {
			return nil
		}
	}
}

// journaled reports whether a block is close enough to the node's head to be reorged, so
// that its changes are journaled and it is written in a transaction of its own.
func (ix *Indexer) journaled(block int64) bool {
	return block > int64(ix.nodeHeadSeen)-int64(ix.cfg.MaxReorgDepth)
}

// writeBlocks writes fetched blocks, several per transaction far from the head and one per
// transaction (with its undo journal) near it.
func (ix *Indexer) writeBlocks(ctx context.Context, blocks []*blockData) error {
	for len(blocks) > 0 {
		n := 1
		journal := ix.journaled(int64(blocks[0].Block.Number))
		if !journal {
			for n < len(blocks) && !ix.journaled(int64(blocks[n].Block.Number)) {
				n++
			}
		}
		if err := ix.writeTx(ctx, blocks[:n], journal); err != nil {
			return err
		}
		blocks = blocks[n:]
	}
	return nil
}

func (ix *Indexer) writeTx(ctx context.Context, blocks []*blockData, journal bool) error {
	// The transaction does not end with ctx: database/sql rolls back a transaction whose
	// context ends from a goroutine of its own, and a ROLLBACK sent while a COPY streams
	// rows on the same connection breaks lib/pq's framing (the indexer then hung for good).
	// ctx is checked before the commit instead: a cancelled batch is rolled back here.
	work := context.WithoutCancel(ctx)
	first, last := blocks[0].Block.Number, blocks[len(blocks)-1].Block.Number
	if err := ix.partitions.Cover(work, ix.db, int64(first), int64(last)); err != nil {
		return err
	}
	tx, err := db.BeginWrite(work, ix.db)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	ix.besideClean = false // until both transactions of this batch commit
	tx.Felts = ix.felts
	w := newBatchWriter(tx, ix.classes)
	w.slots = ix.slots
	w.tokenMeta = ix.tokenMeta
	w.lookup = ix.lookup
	w.oneByOne = ix.oneByOne
	if ix.bulk != nil {
		w.known, w.rows.Counts = ix.bulk.balances, ix.bulk.counts
	}
	if ix.constraintsDeferred && !journal && !ix.oneByOne {
		if w.beside, err = db.BeginBeside(work, ix.db, ix.besideClean); err != nil {
			return fmt.Errorf("begin beside: %w", err)
		}
		defer w.beside.Rollback()
	}
	if err := w.write(work, blocks, journal); err != nil {
		return fmt.Errorf("write blocks %d-%d: %w", first, last, err)
	}
	keepFrom := int64(ix.nodeHeadSeen) - int64(ix.cfg.MaxReorgDepth)
	if last%64 == 0 && keepFrom > 0 {
		if err := db.PruneJournal(work, tx.Tx, keepFrom); err != nil {
			return fmt.Errorf("prune journal: %w", err)
		}
	}
	if err := db.NotifyChain(work, tx, db.ChainNotice{Written: &db.BlockRange{From: int64(first), To: int64(last)}}); err != nil {
		return fmt.Errorf("notify blocks %d-%d: %w", first, last, err)
	}
	sideDone, err := ix.side.write(work, tx.Tx)
	if err != nil {
		return fmt.Errorf("blocks %d-%d: %w", first, last, err)
	}
	if err := ctx.Err(); err != nil {
		return err // stopped: the batch is rolled back
	}
	// The rows written beside first: the head that tx moves never stands above missing rows.
	if w.beside != nil {
		if err := w.beside.Commit(); err != nil {
			return fmt.Errorf("commit blocks %d-%d: %w", first, last, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit blocks %d-%d: %w", first, last, err)
	}
	ix.besideClean = true
	sideDone()
	db.ForgetNames() // names and tokens of the batch show at once where this process serves too (dev)
	metrics.IndexerBalancesReconciled.Add(float64(w.reconciled.Compared))
	metrics.IndexerBalancesCorrected.Add(float64(w.reconciled.Corrected))
	ix.head = int64(last)
	metrics.SetIndexerHeads(last, max(ix.nodeHeadSeen, last))
	return ix.keepBulk(work, w) // after the commit: the memory holds committed values only
}

// notePreConfirmed announces the block the node is building on the indexed head (number
// head+1) when it changed, for subscribers. A node that cannot tell is asked again a minute
// later.
func (ix *Indexer) notePreConfirmed(ctx context.Context, head int64, hash db.Felt) {
	if time.Now().Before(ix.preConfirmedRetry) {
		return
	}
	pc, err := ix.node.PreConfirmed(ctx)
	if err != nil {
		ix.log.Debug("no block being built from the node", "err", err)
		ix.preConfirmedRetry = time.Now().Add(time.Minute)
		return
	}
	onHead := (pc.Number != nil && int64(*pc.Number) == head+1) ||
		(pc.Number == nil && pc.ParentHash != nil && hash.Equal(db.FeltOf(*pc.ParentHash)))
	notice := db.PreConfirmedNotice{Number: head + 1, Timestamp: int64(pc.Timestamp), TxCount: len(pc.TransactionHashes)}
	if !onHead || notice == ix.preConfirmed {
		return
	}
	if err := db.NotifyChain(ctx, ix.db, db.ChainNotice{PreConfirmed: &notice}); err != nil {
		ix.log.Warn("cannot announce the block being built", "err", err)
		return
	}
	ix.preConfirmed = notice
}

// handleReorg walks back from head to the newest block on which the node and the database
// agree, and undoes everything above it in one transaction.
func (ix *Indexer) handleReorg(ctx context.Context, head int64) error {
	// Undoing blocks relies on the foreign keys' cascades.
	if err := ix.restoreConstraints(ctx); err != nil {
		return err
	}
	lowest := max(head-int64(ix.cfg.MaxReorgDepth), 0)
	ancestor := int64(-1)
	// The replaced blocks' hashes, ours and the node's, newest first, for the notice.
	var oldHashes, newHashes []string
	for hi := head; hi >= lowest && ancestor < 0; hi -= 16 {
		lo := max(hi-15, lowest)
		ours, err := db.BlockHashes(ctx, ix.db, lo, hi)
		if err != nil {
			return err
		}
		theirs, _, err := ix.nodeHeaders(ctx, uint64(lo), uint64(hi))
		if err != nil {
			return fmt.Errorf("reorg check: %w", err)
		}
		for n := hi; n >= lo; n-- {
			h, ok := ours[n]
			if !ok || h.Equal(db.FeltOf(theirs[n-lo])) {
				ancestor = n
				break
			}
			oldHashes = append(oldHashes, h.Hex())
			newHashes = append(newHashes, theirs[n-lo].Hex())
		}
	}
	slices.Reverse(oldHashes)
	slices.Reverse(newHashes)
	switch {
	case ancestor == head:
		return fmt.Errorf("block %d: the node sent a block whose parent does not match, but still has our head; not a reorg", head+1)
	case ancestor < 0:
		return fmt.Errorf("reorg deeper than %d blocks below %d; not followed (raise --max-reorg-depth)", ix.cfg.MaxReorgDepth, head)
	}
	tx, err := ix.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.UndoAbove(ctx, tx, ancestor); err != nil {
		return err
	}
	var hash db.Felt
	if err := tx.QueryRowxContext(ctx, `SELECT hash FROM blocks WHERE number = $1`, ancestor).Scan(&hash); err != nil && err != sql.ErrNoRows {
		return err
	}
	if err := db.SetIndexerHead(ctx, tx, ancestor, hash); err != nil {
		return err
	}
	notice := db.ReorgNotice{Ancestor: ancestor, Depth: head - ancestor, OldHashes: oldHashes, NewHashes: newHashes}
	if err := db.NotifyChain(ctx, tx, db.ChainNotice{Reorg: &notice}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	db.ForgetNames()
	ix.side.reorged(ancestor)
	ix.classes.reset()
	ix.tokenMeta.reset()
	ix.log.Warn("reorg: undid blocks", "from", ancestor+1, "to", head, "depth", head-ancestor)
	ix.head = ancestor
	return nil
}

// updateFinality finds the blocks the node reports as ACCEPTED_ON_L1 that are still
// ACCEPTED_ON_L2 in the database; the next block's transaction (or flushSide) moves them and
// their transactions. Blocks become final in order, so a binary search over the oldest
// L2 blocks finds the newest L1 one.
func (ix *Indexer) updateFinality(ctx context.Context) error {
	if time.Since(ix.lastFinality) < ix.cfg.FinalityInterval && ix.cfg.StopAt < 0 {
		return nil
	}
	ix.lastFinality = time.Now()
	oldest, ok, err := db.OldestL2Block(ctx, ix.db)
	if err != nil || !ok || ix.head < oldest {
		return err
	}
	lo, hi := oldest, ix.head // invariant: blocks < lo are L1 in the database
	found := int64(-1)
	for lo <= hi {
		mid := lo + (hi-lo)/2
		_, statuses, err := ix.nodeHeaders(ctx, uint64(mid), uint64(mid))
		if err != nil {
			return err
		}
		if statuses[0] == "ACCEPTED_ON_L1" {
			found, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	if found < 0 {
		return nil
	}
	// Marked with the next block's transaction (sidewrites.go).
	ix.side.hold(time.Now())
	ix.side.l1 = &db.BlockRange{From: oldest, To: found}
	return nil
}

// backoff doubles a wait from 200ms up to 30s.
type backoff struct{ d time.Duration }

func newBackoff() *backoff { return &backoff{} }

func (b *backoff) next() time.Duration {
	switch {
	case b.d == 0:
		b.d = 200 * time.Millisecond
	case b.d < 30*time.Second:
		b.d *= 2
	}
	return min(b.d, 30*time.Second)
}

func (b *backoff) reset() { b.d = 0 }

// sleep waits d or until ctx ends; it reports whether the full wait elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
