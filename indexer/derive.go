package indexer

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// blockData is one fetched block with what the writer needs besides the block itself.
type blockData struct {
	Block *rpc.Block
	State *rpc.StateUpdate
	// Classes holds the classes the state diff names that the indexer did not know yet, as
	// the node gave them; nil for a class the node does not have.
	Classes map[starknet.Felt]*classInfo
	// Implementations holds what the proxies the block deploys or upgrades answered for
	// their implementation; nil when there are none.
	Implementations map[starknet.Felt]starknet.Felt
	// Figures is the reading of chain figures made at this block (figures.go), if any.
	Figures *chainFigures
	// rows are the block's rows made by the fetcher; nil: apply makes them.
	rows *blockRows
}

func dec(f starknet.Felt) string {
	if n, ok := f.Uint64(); ok {
		return strconv.FormatUint(n, 10)
	}
	return f.Big().String()
}

func decp(f *starknet.Felt) string {
	if f == nil {
		return ""
	}
	return dec(*f)
}

// batchWriter derives and writes one batch of blocks inside one SQL transaction. It reads
// the current rows of every key the batch touches, applies the blocks in order in memory,
// then writes each table once.
type batchWriter struct {
	tx        *sqlx.Tx
	writeTx   *db.WriteTx // the same transaction, for COPY
	classes   *classCache
	tokenMeta *tokenMetaCache // nil: tokens are written without metadata
	// lookup asks the node about contracts deployed before the indexed range; nil: never.
	lookup *contractLookup
	// oneByOne writes chain rows with single-row INSERTs: the benchmark's baseline.
	oneByOne bool
	// beside, during a bulk load, writes some of the chain rows in a second transaction
	// (db/beside.go); nil: tx writes them all.
	beside *db.Beside
	// known, during a bulk load, holds the balances the committed batches left (bulk.go): the
	// batch reads only the others, and leaves erc20_balances, key_counts (rows.Counts) and
	// the sender activity to db.DeriveDeferred. nil: the batch writes them.
	known map[[2]starknet.Felt]balance

	contracts map[starknet.Felt]*db.Contract // nil value: known absent
	tokens    map[starknet.Felt]*db.TokenRow
	balances  map[[2]starknet.Felt]*balance
	nftItems  map[nftKey]*db.NFTItemRow
	nftBals   map[nftOwnerKey]*balance
	// nftHeld is what each (collection, owner) pair holds in all, for holder counts.
	nftHeld  map[[2]starknet.Felt]*big.Int
	newClass map[starknet.Felt]*db.Class

	dirtyContracts map[starknet.Felt]bool
	dirtyTokens    map[starknet.Felt]bool
	dirtyBalances  map[[2]starknet.Felt]bool
	blockBalances  map[[2]starknet.Felt]bool // changed by the block being applied
	dirtyItems     map[nftKey]bool
	dirtyNFTBals   map[nftOwnerKey]bool
	counts         map[string]int64
	buckets        map[bucket]*bucketSums // the batch's counts per day and hour
	rows           db.ChainRows
	staking        *staking
	starknetID     *starknetIDState
	// slots reads balance slots back to their owners; nil: the storage diffs are not
	// compared with the events (reconcile.go).
	slots          *slotIndex
	reconciled     reconcileStats
	corrections    []db.BalanceCorrection
	activity       *senderActivity
	journalEntries []db.JournalEntry

	// Transactions per second between consecutive blocks, for chain_stats.max_tps.
	prevTimestamp int64
	havePrev      bool
	maxTPS        float64
	maxTPSBlock   db.Felt // set when this batch raised the maximum
}

type balance struct {
	amount    *big.Int
	lastBlock int64
	lastTime  int64
}

type nftKey struct {
	contract starknet.Felt
	id       string
}

type nftOwnerKey struct {
	nftKey
	owner starknet.Felt
}

func newBatchWriter(tx *db.WriteTx, classes *classCache) *batchWriter {
	return &batchWriter{
		tx: tx.Tx, writeTx: tx, classes: classes,
		contracts: map[starknet.Felt]*db.Contract{}, tokens: map[starknet.Felt]*db.TokenRow{},
		balances: map[[2]starknet.Felt]*balance{}, nftItems: map[nftKey]*db.NFTItemRow{},
		nftBals: map[nftOwnerKey]*balance{}, nftHeld: map[[2]starknet.Felt]*big.Int{}, newClass: map[starknet.Felt]*db.Class{},
		dirtyContracts: map[starknet.Felt]bool{}, dirtyTokens: map[starknet.Felt]bool{},
		dirtyBalances: map[[2]starknet.Felt]bool{}, blockBalances: map[[2]starknet.Felt]bool{}, dirtyItems: map[nftKey]bool{},
		dirtyNFTBals: map[nftOwnerKey]bool{}, counts: map[string]int64{}, buckets: map[bucket]*bucketSums{}, staking: newStaking(),
		slots: newSlotIndex(),
	}
}

// reserve makes room in the batch's rows for its transactions, their events and (at least
// one each) their calls: appended one by one, the wide rows of a batch of thousands of
// transactions were copied at every doubling, a fifth of applyTransaction's time.
func (w *batchWriter) reserve(batch []*blockData) {
	txs, events := 0, 0
	for _, bd := range batch {
		txs += len(bd.Block.Transactions)
		for i := range bd.Block.Transactions {
			events += len(bd.Block.Transactions[i].Receipt.Events)
		}
	}
	w.rows.Transactions = slices.Grow(w.rows.Transactions, txs)
	w.rows.Calls = slices.Grow(w.rows.Calls, txs)
	w.rows.Events = slices.Grow(w.rows.Events, events)
}

// write derives and writes the batch. When journal is set the batch holds one block and the
// old images of every row it changes are kept for a reorg.
func (w *batchWriter) write(ctx context.Context, batch []*blockData, journal bool) error {
	if err := w.preload(ctx, batch); err != nil {
		return err
	}
	w.reserve(batch)
	for _, bd := range batch {
		w.apply(bd)
	}
	last := batch[len(batch)-1].Block
	var err error
	switch {
	case w.oneByOne:
		err = db.InsertChainRowsOneByOne(ctx, w.writeTx, &w.rows)
	case w.beside != nil:
		err = db.InsertChainRowsBeside(ctx, w.writeTx, w.beside, &w.rows)
	default:
		err = db.InsertChainRows(ctx, w.writeTx, &w.rows)
	}
	if err != nil {
		return err
	}
	if err := db.MatchL1Messages(ctx, w.tx, int64(batch[0].Block.Number), int64(last.Number)); err != nil {
		return err
	}
	if w.known == nil {
		if err := w.prepareSenderActivity(ctx, batch, journal); err != nil {
			return err
		}
	}
	if journal {
		w.journalFigures(batch)
		if err := w.journal(ctx, int64(last.Number)); err != nil {
			return err
		}
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	if err := w.writeFigures(ctx, batch); err != nil {
		return err
	}
	if err := db.RefreshFigures(ctx, w.tx); err != nil {
		return err
	}
	return db.SetIndexerHead(ctx, w.tx, int64(last.Number), db.FeltOf(last.Hash))
}

// preload reads the contracts, tokens, balances and NFT rows the batch touches.
func (w *batchWriter) preload(ctx context.Context, batch []*blockData) error {
	addrs := map[starknet.Felt]bool{}
	var pairsT, pairsO []db.Felt
	seenPair := map[[2]starknet.Felt]bool{}
	// Transfer events that may be NFT transfers; their NFT keys are made once the contracts
	// known to be ERC-20 are known.
	var nftCandidates []*rpc.Event
	var diffClasses []starknet.Felt
	deployed := map[starknet.Felt]bool{}
	upgraded := map[starknet.Felt]bool{} // contracts whose class the batch replaces
	for _, bd := range batch {
		for _, t := range bd.Block.Transactions {
			if t.SenderAddress != nil {
				addrs[*t.SenderAddress] = true
			}
			if t.ContractAddress != nil {
				addrs[*t.ContractAddress] = true
			}
			if t.Type == rpc.TxInvoke && t.Version > 0 {
				calls, _ := decodeExecute(t.Calldata, nil)
				for _, c := range calls {
					addrs[c.To] = true
				}
			}
			for ei := range t.Receipt.Events {
				e := &t.Receipt.Events[ei]
				addrs[e.FromAddress] = true
				if len(e.Keys) == 0 || (e.Keys[0] != selTransfer && e.Keys[0] != selTransferSingle && e.Keys[0] != selTransferBatch) {
					continue
				}
				// The shape alone may not settle the standard; load both kinds of keys.
				nftCandidates = append(nftCandidates, e)
				for _, m := range readTransfers(e.Keys, e.Data, "") {
					for _, owner := range []starknet.Felt{m.From, m.To} {
						if owner.IsZero() {
							continue
						}
						p := [2]starknet.Felt{e.FromAddress, owner}
						if !seenPair[p] {
							seenPair[p] = true
							pairsT, pairsO = append(pairsT, db.FeltOf(e.FromAddress)), append(pairsO, db.FeltOf(owner))
						}
					}
				}
			}
		}
		for h, info := range bd.Classes {
			w.classes.put(h, info)
		}
		if bd.State != nil {
			for _, d := range bd.State.DeployedContracts {
				addrs[d.Address] = true
				deployed[d.Address] = true
				diffClasses = append(diffClasses, d.ClassHash)
			}
			for _, r := range bd.State.ReplacedClasses {
				addrs[r.ContractAddress] = true
				upgraded[r.ContractAddress] = true
				diffClasses = append(diffClasses, r.ClassHash)
			}
			for _, d := range bd.State.DeclaredClasses {
				diffClasses = append(diffClasses, d.ClassHash)
			}
			diffClasses = append(diffClasses, bd.State.DeprecatedDeclaredClasses...)
			for _, n := range bd.State.Nonces {
				addrs[n.ContractAddress] = true
			}
		}
	}
	list := make([]db.Felt, 0, len(addrs))
	for a := range addrs {
		list = append(list, db.FeltOf(a))
		w.contracts[a] = nil
	}
	contracts, err := db.LoadContracts(ctx, w.tx, list)
	if err != nil {
		return fmt.Errorf("load contracts: %w", err)
	}
	classHashes := diffClasses
	for i := range contracts {
		c := contracts[i]
		w.contracts[c.Address.Starknet()] = &c
		classHashes = append(classHashes, c.ClassHash.Starknet())
	}
	if err := w.lookUpMissing(ctx, batch[0].Block.Number, deployed); err != nil {
		return err
	}
	if err := w.classes.load(ctx, w.tx, classHashes); err != nil {
		return err
	}
	tokens, err := db.LoadTokens(ctx, w.tx, list)
	if err != nil {
		return fmt.Errorf("load tokens: %w", err)
	}
	for i := range tokens {
		t := tokens[i]
		w.tokens[t.Address.Starknet()] = &t
	}
	if err := w.preloadStorage(ctx, batch, addrs, &pairsT, &pairsO, seenPair); err != nil {
		return err
	}
	if w.known != nil {
		pairsT, pairsO = w.takeKnown(pairsT, pairsO)
	}
	if len(pairsT) > 0 {
		bals, err := db.LoadERC20Balances(ctx, w.tx, pairsT, pairsO)
		if err != nil {
			return fmt.Errorf("load balances: %w", err)
		}
		for _, b := range bals {
			v, _ := new(big.Int).SetString(b.Balance, 10)
			w.balances[[2]starknet.Felt{b.TokenAddress.Starknet(), b.OwnerAddress.Starknet()}] = &balance{v, b.LastTransferBlock, b.LastTransferTime}
		}
	}
	first := int64(batch[0].Block.Number)
	if first > 0 {
		ts, ok, err := db.BlockTimestamp(ctx, w.tx, first-1)
		if err != nil {
			return fmt.Errorf("load parent timestamp: %w", err)
		}
		w.prevTimestamp, w.havePrev = ts, ok
	}
	if w.maxTPS, err = db.MaxTPS(ctx, w.tx); err != nil {
		return fmt.Errorf("load max tps: %w", err)
	}
	if err := w.preloadStaking(ctx, batch); err != nil {
		return err
	}
	w.preloadStarknetID()
	// An ERC-20 in the legacy event layout reads as an ERC-721 too; the transfers of
	// contracts known to be ERC-20 (and not deployed or upgraded in this batch, whose
	// standard may change within it) make no NFT keys. They are most transfers: the fee
	// token's.
	var itemC, nbC, nbO []db.Felt
	var itemI, nbI []string
	seenItem := map[nftKey]bool{}
	seenNB := map[nftOwnerKey]bool{}
	for _, e := range nftCandidates {
		if !deployed[e.FromAddress] && !upgraded[e.FromAddress] && w.knownStandard(e.FromAddress) == "erc20" {
			continue
		}
		for _, m := range readTransfers(e.Keys, e.Data, "erc721") {
			if m.TokenID == nil {
				continue
			}
			k := nftKey{e.FromAddress, m.TokenID.String()}
			if !seenItem[k] {
				seenItem[k] = true
				itemC, itemI = append(itemC, db.FeltOf(k.contract)), append(itemI, k.id)
			}
			for _, owner := range []starknet.Felt{m.From, m.To} {
				ok := nftOwnerKey{k, owner}
				if owner.IsZero() || seenNB[ok] {
					continue
				}
				seenNB[ok] = true
				nbC, nbI, nbO = append(nbC, db.FeltOf(k.contract)), append(nbI, k.id), append(nbO, db.FeltOf(owner))
			}
		}
	}
	if len(itemC) > 0 {
		items, err := db.LoadNFTItems(ctx, w.tx, itemC, itemI)
		if err != nil {
			return fmt.Errorf("load nft items: %w", err)
		}
		for i := range items {
			it := items[i]
			w.nftItems[nftKey{it.Contract.Starknet(), it.TokenID}] = &it
		}
		bals, err := db.LoadNFTBalances(ctx, w.tx, nbC, nbI, nbO)
		if err != nil {
			return fmt.Errorf("load nft balances: %w", err)
		}
		for _, b := range bals {
			v, _ := new(big.Int).SetString(b.Balance, 10)
			w.nftBals[nftOwnerKey{nftKey{b.ContractAddress.Starknet(), b.TokenID}, b.OwnerAddress.Starknet()}] = &balance{v, 0, b.LastTransferTime}
		}
		held, err := db.NFTHoldings(ctx, w.tx, nbC, nbO)
		if err != nil {
			return fmt.Errorf("load nft holdings: %w", err)
		}
		for i := range nbC {
			k := [2]starknet.Felt{nbC[i].Starknet(), nbO[i].Starknet()}
			if w.nftHeld[k] == nil {
				w.nftHeld[k] = new(big.Int)
				if sum, ok := held[[2]string{string(nbC[i]), string(nbO[i])}]; ok {
					w.nftHeld[k].SetString(sum, 10)
				}
			}
		}
	}
	return nil
}

// classOf returns what is known of the class of the contract at address.
func (w *batchWriter) classOf(address starknet.Felt) (starknet.Felt, *classInfo, bool) {
	c := w.contracts[address]
	if c == nil {
		return starknet.Felt{}, nil, false
	}
	h := c.ClassHash.Starknet()
	return h, w.classes.get(h), true
}

// knownStandard is the token standard of the contract at address, from its class or its
// token row; "" when neither tells.
func (w *batchWriter) knownStandard(address starknet.Felt) string {
	if _, info, ok := w.classOf(address); ok && info != nil && info.ERCStandard != "" {
		return info.ERCStandard
	}
	if tok := w.tokens[address]; tok != nil {
		return tok.Standard
	}
	return ""
}

// entrypointName names a selector called on address, from the callee's ABI or a known list.
func (w *batchWriter) entrypointName(address, selector starknet.Felt) string {
	if _, info, ok := w.classOf(address); ok && info != nil {
		if n, ok := info.Functions[selector]; ok {
			return n
		}
	}
	return wellKnownNames[selector]
}

func (w *batchWriter) apply(bd *blockData) {
	b := bd.Block
	num, ts := int64(b.Number), int64(b.Timestamp)
	w.applyStateDiff(bd)

	eventCount, messageCount := 0, 0
	transfersBefore := len(w.rows.TokenTransfers)
	fees := map[string]*big.Int{"WEI": new(big.Int), "FRI": new(big.Int)} // by fee unit
	feeTxs := map[string]int{}
	activity := db.ActivityStat{Blocks: 1, Transactions: int64(len(b.Transactions))}
	rows := bd.rows
	if rows == nil { // a block not made by the fetchers
		rows = makeBlockRows(b)
	}
	events := rows.events
	for i := range b.Transactions {
		t := &b.Transactions[i]
		countTransaction(&activity, t)
		eventCount += len(t.Receipt.Events)
		messageCount += len(t.Receipt.MessagesSent)
		if sum := fees[t.Receipt.ActualFee.Unit]; sum != nil {
			sum.Add(sum, t.Receipt.ActualFee.Amount.Big())
			feeTxs[t.Receipt.ActualFee.Unit]++
		}
		n := len(t.Receipt.Events)
		w.applyTransaction(t, &rows.txs[i], events[:n:n], b.SequencerAddress)
		events = events[n:]
	}
	row := db.BlockRow{
		Number: num, Hash: db.FeltOf(b.Hash), ParentHash: db.FeltOf(b.ParentHash), Timestamp: ts,
		Status: b.Status, StateRoot: db.FeltOf(b.NewRoot), SequencerAddress: db.FeltOf(b.SequencerAddress),
		StarknetVersion: b.StarknetVersion, L1DAMode: b.L1DAMode,
		L1GasPriceWei: dec(b.L1GasPrice.PriceInWei), L1GasPriceFri: dec(b.L1GasPrice.PriceInFri),
		L1DataGasPriceWei: dec(b.L1DataGasPrice.PriceInWei), L1DataGasPriceFri: dec(b.L1DataGasPrice.PriceInFri),
		TxCount: len(b.Transactions), EventCount: eventCount, MessageCount: messageCount,
		FeesWei: fees["WEI"].String(), FeeTxsWei: feeTxs["WEI"], FeesFri: fees["FRI"].String(), FeeTxsFri: feeTxs["FRI"],
	}
	if b.L2GasPrice != nil {
		row.L2GasPriceWei, row.L2GasPriceFri = dec(b.L2GasPrice.PriceInWei), dec(b.L2GasPrice.PriceInFri)
	}
	if w.havePrev {
		tps := float64(len(b.Transactions)) / float64(max(ts-w.prevTimestamp, 1))
		if tps > w.maxTPS {
			w.maxTPS, w.maxTPSBlock = tps, db.FeltOf(b.Hash)
		}
	}
	w.prevTimestamp, w.havePrev = ts, true
	w.rows.Blocks = append(w.rows.Blocks, row)
	activity.Events, activity.MessagesToL1 = int64(eventCount), int64(messageCount)
	activity.TokenTransfers = int64(len(w.rows.TokenTransfers) - transfersBefore)
	w.addActivity(ts, &activity, fees["WEI"], fees["FRI"])
	w.reconcile(bd)
	// Each balance the block changed, as it stands after the block.
	for k := range w.blockBalances {
		w.rows.BalancePoints = append(w.rows.BalancePoints, db.BalancePoint{Token: db.FeltOf(k[0]), Owner: db.FeltOf(k[1]),
			BlockNumber: num, Balance: w.balances[k].amount.String()})
	}
	clear(w.blockBalances)
	w.counts["blocks"]++
	w.counts["transactions"] += int64(len(b.Transactions))
	w.counts["events"] += int64(eventCount)
}

// applyTransaction derives the rows of transaction t of a block whose sequencer is sequencer,
// from its row and its events' rows as far as the block tells them (blockRows).
func (w *batchWriter) applyTransaction(t *rpc.Transaction, tx *db.TransactionRow, events []db.EventRow, sequencer starknet.Felt) {
	r := &t.Receipt
	row := *tx
	num, ts, i := row.BlockNumber, row.Timestamp, row.TxIndex
	w.counts["transactions:"+t.Type]++

	// Calls: the account's multicall, or the single call of INVOKE v0 and L1_HANDLER.
	var calls []decodedCall
	switch {
	case t.Type == rpc.TxInvoke && t.Version > 0 && t.SenderAddress != nil:
		classHash, info, known := w.classOf(*t.SenderAddress)
		if known {
			row.ClassHash = db.FeltOf(classHash)
		}
		var complete bool
		calls, complete = decodeExecute(t.Calldata, info)
		row.PartialCallsParsing = !complete
	case t.ContractAddress != nil && t.EntryPointSelector != nil:
		calls = []decodedCall{{To: *t.ContractAddress, Selector: *t.EntryPointSelector, Calldata: t.Calldata}}
	}
	w.rows.Transactions = append(w.rows.Transactions, row)
	sliced := slicesOf(t.Calldata, calls)
	for ci, c := range calls {
		call := db.CallRow{BlockNumber: num, TxIndex: i, CallIndex: ci, ContractAddress: db.FeltOf(c.To),
			Selector: db.FeltOf(c.Selector), Entrypoint: w.entrypointName(c.To, c.Selector)}
		if sliced {
			off, n := int16(c.Offset), int16(len(c.Calldata))
			call.CalldataOffset, call.CalldataLength = &off, &n
		} else {
			call.Calldata = db.FeltsOf(c.Calldata)
			if call.Calldata == nil {
				call.Calldata = db.FeltArray{}
			}
		}
		if h, _, ok := w.classOf(c.To); ok {
			call.ClassHash = db.FeltOf(h)
		}
		w.rows.Calls = append(w.rows.Calls, call)
		if oe, ok := decodeOutsideExecution(c.Selector, c.Calldata); ok {
			w.addMetaTransaction(num, i, ci, c.To, oe)
		}
	}

	w.addMessages(num, ts, i, t)

	// The fee is paid by the sender, or by the account a DEPLOY_ACCOUNT deploys.
	payer := t.SenderAddress
	if payer == nil && t.Type == rpc.TxDeployAccount {
		payer = r.ContractAddress
	}
	nftBefore, transfersBefore := len(w.rows.NFTEvents), len(w.rows.TokenTransfers)
	w.rows.Events = append(w.rows.Events, events...)
	for ei, e := range r.Events {
		for _, m := range readTransfers(e.Keys, e.Data, w.knownStandard(e.FromAddress)) {
			// The protocol pays the fee with a transfer from the payer to the sequencer.
			m.Fee = m.Standard == "erc20" && payer != nil && m.From == *payer && m.To == sequencer
			w.applyMove(num, ts, i, ei, t.Hash, e.FromAddress, m)
		}
		w.stakingEvent(num, ts, i, ei, t.Hash, &r.Events[ei])
		w.starknetIDEvent(num, &r.Events[ei])
	}
	w.markSales(w.rows.NFTEvents[nftBefore:], w.rows.TokenTransfers[transfersBefore:], calls)
}

// addMessages records the L1 -> L2 message an L1 handler consumes and the L2 -> L1
// messages a receipt sends.
func (w *batchWriter) addMessages(num, ts int64, i int, t *rpc.Transaction) {
	r := &t.Receipt
	if t.Type == rpc.TxL1Handler && r.MessageHash != nil && t.ContractAddress != nil {
		m := db.Message{BlockNumber: num, TxIndex: i, Direction: db.MessageToL2, Hash: db.Normalize(r.MessageHash[:]),
			FromAddress: db.Felt{}, ToAddress: db.FeltOf(*t.ContractAddress), L2Address: db.FeltOf(*t.ContractAddress),
			Selector: db.FeltPtrOf(t.EntryPointSelector), Payload: db.FeltArray{}, TransactionHash: db.FeltOf(t.Hash), Timestamp: ts}
		if len(t.Calldata) > 0 { // the L1 sender, then the payload
			m.FromAddress, m.Payload = db.FeltOf(t.Calldata[0]), db.FeltsOf(t.Calldata[1:])
		}
		w.rows.Messages = append(w.rows.Messages, m)
		w.counts["messages"]++
	}
	for mi, sent := range r.MessagesSent {
		hash := starknet.MessageToL1Hash(sent.FromAddress, sent.ToAddress, sent.Payload)
		w.rows.Messages = append(w.rows.Messages, db.Message{BlockNumber: num, TxIndex: i, Direction: db.MessageToL1, Index: mi,
			Hash: db.Normalize(hash[:]), FromAddress: db.FeltOf(sent.FromAddress), ToAddress: db.FeltOf(sent.ToAddress),
			L2Address: db.FeltOf(sent.FromAddress), Payload: db.FeltsOf(sent.Payload), TransactionHash: db.FeltOf(t.Hash), Timestamp: ts})
		w.counts["messages"]++
	}
}

func (w *batchWriter) addMetaTransaction(num int64, txIndex, callIndex int, account starknet.Felt, oe *outsideExecution) {
	ops := make([]string, len(oe.Calls))
	type action struct {
		To         string   `json:"to"`
		Selector   string   `json:"selector"`
		Entrypoint string   `json:"entrypoint,omitempty"`
		Calldata   []string `json:"calldata"`
	}
	actions := make([]action, len(oe.Calls))
	for i, c := range oe.Calls {
		name := w.entrypointName(c.To, c.Selector)
		ops[i] = name
		if name == "" {
			ops[i] = c.Selector.Hex()
		}
		actions[i] = action{To: c.To.Padded(), Selector: c.Selector.Hex(), Entrypoint: name, Calldata: starknet.FeltsToHex(c.Calldata)}
	}
	raw, _ := json.Marshal(actions)
	w.rows.MetaTransactions = append(w.rows.MetaTransactions, db.MetaTransactionRow{
		BlockNumber: num, TxIndex: txIndex, CallIndex: callIndex, ContractAddress: db.FeltOf(account),
		CallerAddress: db.FeltOf(oe.Caller), Version: int(oe.Version), Operations: strings.Join(ops, ","), Actions: raw,
	})
	w.counts["meta_transactions"]++
}
