package indexer

import (
	"strconv"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// blockRows are the rows of one block that follow from the block alone: its transactions,
// short of what the batch's state tells (the class of an account that invokes, whether its
// calls parsed), and their events. The fetchers make them as blocks arrive, on the cores
// the writer leaves idle while it reads and upserts, so that the writer, which applies a
// batch's blocks in order on one goroutine, only adds what needs the state.
type blockRows struct {
	txs    []db.TransactionRow
	events []db.EventRow // the block's events, transaction by transaction
}

func makeBlockRows(b *rpc.Block) *blockRows {
	num, ts := int64(b.Number), int64(b.Timestamp)
	n := 0
	for i := range b.Transactions {
		n += len(b.Transactions[i].Receipt.Events)
	}
	rows := &blockRows{txs: make([]db.TransactionRow, len(b.Transactions)), events: make([]db.EventRow, 0, n)}
	for i := range b.Transactions {
		t := &b.Transactions[i]
		rows.txs[i] = transactionRow(num, ts, i, t)
		for ei, e := range t.Receipt.Events {
			rows.events = append(rows.events, db.EventRow{BlockNumber: num, TxIndex: i, EventIndex: ei,
				FromAddress: db.FeltOf(e.FromAddress), Keys: db.FeltsOf(e.Keys), Data: db.FeltsOf(e.Data)})
		}
	}
	return rows
}

// transactionRow is the row of transaction i of block num, as far as the transaction tells.
func transactionRow(num, ts int64, i int, t *rpc.Transaction) db.TransactionRow {
	r := &t.Receipt
	row := db.TransactionRow{
		BlockNumber: num, TxIndex: i, Hash: db.FeltOf(t.Hash), Type: t.Type, Version: int(t.Version), Timestamp: ts,
		SenderAddress: db.FeltPtrOf(t.SenderAddress), ContractAddress: db.FeltPtrOf(t.ContractAddress),
		EntryPointSelector: db.FeltPtrOf(t.EntryPointSelector), Nonce: decp(t.Nonce), MaxFee: decp(t.MaxFee), Tip: decp(t.Tip),
		ActualFee: dec(r.ActualFee.Amount), ActualFeeUnit: r.ActualFee.Unit, ExecutionStatus: r.ExecutionStatus,
		FinalityStatus: r.FinalityStatus, Calldata: db.FeltsOf(t.Calldata), ConstructorCalldata: db.FeltsOf(t.ConstructorCalldata),
		Signature: db.FeltsOf(t.Signature), CompiledClassHash: db.FeltPtrOf(t.CompiledClassHash),
		ContractAddressSalt: db.FeltPtrOf(t.ContractAddressSalt), PaymasterData: db.FeltsOf(t.PaymasterData),
		AccountDeploymentData: db.FeltsOf(t.AccountDeploymentData), NonceDAMode: t.NonceDAMode, FeeDAMode: t.FeeDAMode,
		EventCount: len(r.Events),
	}
	if t.Type == rpc.TxDeclare || t.Type == rpc.TxDeploy || t.Type == rpc.TxDeployAccount {
		row.ClassHash = db.FeltPtrOf(t.ClassHash)
	}
	if r.ContractAddress != nil && (t.Type == rpc.TxDeploy || t.Type == rpc.TxDeployAccount) {
		row.ContractAddress = db.FeltOf(*r.ContractAddress)
	}
	if r.ExecutionStatus == rpc.ExecutionReverted {
		reason := r.RevertReason
		row.RevertReason = &reason
	}
	if rb := t.ResourceBounds; rb != nil {
		row.MaxL1Gas, row.MaxL1GasPrice = dec(rb.L1Gas.MaxAmount), dec(rb.L1Gas.MaxPricePerUnit)
		row.MaxL2Gas, row.MaxL2GasPrice = dec(rb.L2Gas.MaxAmount), dec(rb.L2Gas.MaxPricePerUnit)
		row.MaxL1DataGas, row.MaxL1DataGasPrice = dec(rb.L1DataGas.MaxAmount), dec(rb.L1DataGas.MaxPricePerUnit)
	}
	res := &r.ExecutionResources
	row.L1GasUsed = strconv.FormatUint(res.L1Gas, 10)
	row.L2GasUsed = strconv.FormatUint(res.L2Gas, 10)
	row.L1DataGasUsed = strconv.FormatUint(res.L1DataGas, 10)
	if r.MessageHash != nil {
		row.MessageHash = db.Normalize(r.MessageHash[:])
	}
	return row
}
