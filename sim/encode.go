package sim

import "strconv"

// The JSON encoders write straight into a byte slice: no reflection, no
// intermediate maps. Member order follows Juno's structs, like the fixtures.

type enc struct{ b []byte }

func (e *enc) raw(s string)  { e.b = append(e.b, s...) }
func (e *enc) felt(f felt)   { e.b = append(e.b, '"'); e.b = f.appendHex(e.b); e.b = append(e.b, '"') }
func (e *enc) uint(v uint64) { e.b = strconv.AppendUint(e.b, v, 10) }
func (e *enc) hexU(v uint64) { e.felt(feltU(v)) }
func (e *enc) key(k string) {
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}
func (e *enc) str(s string)   { e.b = strconv.AppendQuote(e.b, s) }
func (e *enc) comma()         { e.b = append(e.b, ',') }
func (e *enc) field(k string) { e.comma(); e.key(k) }

// The members of an object after its first: `,"k":` and the value.
func (e *enc) feltField(k string, f felt)     { e.field(k); e.felt(f) }
func (e *enc) feltsField(k string, fs []felt) { e.field(k); e.felts(fs) }
func (e *enc) hexUField(k string, v uint64)   { e.field(k); e.hexU(v) }
func (e *enc) uintField(k string, v uint64)   { e.field(k); e.uint(v) }
func (e *enc) strField(k string, v string)    { e.field(k); e.str(v) }

func (e *enc) felts(fs []felt) {
	e.b = append(e.b, '[')
	for i, f := range fs {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.felt(f)
	}
	e.b = append(e.b, ']')
}

func (e *enc) header(b *block, status string) {
	e.raw(`{"status":`)
	e.str(status)
	e.feltField("block_hash", b.hash)
	e.feltField("parent_hash", b.parent)
	e.uintField("block_number", b.number)
	e.feltField("new_root", b.root)
	e.headerRest(b)
}

// headerRest writes the header members a block being built has too.
func (e *enc) headerRest(b *block) {
	e.uintField("timestamp", b.timestamp)
	e.feltField("sequencer_address", fixedAddr[fixedSequencer])
	e.price("l1_gas_price", b.l1GasFri, b.l1GasWei)
	e.price("l1_data_gas_price", b.l1DataFri, b.l1DataWei)
	e.raw(`,"l1_da_mode":"BLOB","starknet_version":"0.13.4"`)
	e.price("l2_gas_price", b.l2GasFri, b.l2GasWei)
}

func (e *enc) price(k string, fri, wei uint64) {
	e.field(k)
	e.raw(`{"price_in_fri":`)
	e.hexU(fri)
	e.raw(`,"price_in_wei":`)
	e.hexU(wei)
	e.raw("}")
}

func txTypeName(t uint8) string {
	return [...]string{"INVOKE", "DECLARE", "DEPLOY_ACCOUNT", "L1_HANDLER"}[t]
}

// transaction writes the TXN object; withHash puts transaction_hash first
// (getBlockWithTxs), otherwise it is left out as nodes do in getBlockWithReceipts.
func (e *enc) transaction(t *tx, withHash bool) {
	e.raw("{")
	if withHash {
		e.key("transaction_hash")
		e.felt(t.hash)
		e.comma()
	}
	e.key("type")
	e.str(txTypeName(t.typ))
	e.hexUField("version", uint64(t.version))
	e.hexUField("nonce", t.nonce)
	switch t.typ {
	case txL1Handler:
		e.feltField("contract_address", t.sender)
		e.feltField("entry_point_selector", t.entryPoint)
		e.feltsField("calldata", t.calldata)
		e.raw("}")
		return
	case txInvoke:
		e.feltField("sender_address", t.sender)
		e.feltsField("signature", t.signature)
		e.feltsField("calldata", t.calldata)
	case txDeclare:
		e.feltField("class_hash", t.classHash)
		if t.version >= 2 { // DECLARE v1 (Cairo 0 classes) has no compiled class
			e.feltField("compiled_class_hash", t.compiledClass)
		}
		e.feltField("sender_address", t.sender)
		e.feltsField("signature", t.signature)
	case txDeployAccount:
		e.feltField("contract_address_salt", t.salt)
		e.feltField("class_hash", t.classHash)
		e.feltsField("constructor_calldata", t.ctorCalldata)
		e.feltsField("signature", t.signature)
	}
	if t.version == 3 {
		e.raw(`,"resource_bounds":{"l1_gas":{"max_amount":`)
		e.hexU(t.l1GasMax)
		e.raw(`,"max_price_per_unit":`)
		e.hexU(t.l1GasPriceBid)
		e.raw(`},"l2_gas":{"max_amount":`)
		e.hexU(t.l2GasMax)
		e.raw(`,"max_price_per_unit":`)
		e.hexU(t.l2GasPriceBid)
		e.raw(`},"l1_data_gas":{"max_amount":`)
		e.hexU(t.l1Data * 2)
		e.raw(`,"max_price_per_unit":`)
		e.hexU(t.l1GasPriceBid)
		e.raw(`}},"tip":`)
		e.hexU(t.tip)
		e.raw(`,"paymaster_data":[]`)
		if t.typ != txDeployAccount {
			e.raw(`,"account_deployment_data":[]`)
		}
		e.raw(`,"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L1"`)
	} else {
		e.feltField("max_fee", t.maxFee.felt())
	}
	e.raw("}")
}

// receipt writes a TXN_RECEIPT; with b set it also carries block_hash and
// block_number (getTransactionReceipt), as receipts inside a block do not.
func (e *enc) receipt(t *tx, finality string, b *block) {
	e.raw(`{"type":`)
	e.str(txTypeName(t.typ))
	if b != nil {
		e.feltField("block_hash", b.hash)
		e.uintField("block_number", b.number)
	}
	e.feltField("transaction_hash", t.hash)
	e.raw(`,"actual_fee":{"amount":`)
	e.felt(t.fee.felt())
	if t.version == 3 {
		e.raw(`,"unit":"FRI"}`)
	} else {
		e.raw(`,"unit":"WEI"}`)
	}
	if t.reverted {
		e.raw(`,"execution_status":"REVERTED"`)
	} else {
		e.raw(`,"execution_status":"SUCCEEDED"`)
	}
	e.strField("finality_status", finality)
	e.raw(`,"messages_sent":[`)
	for i, m := range t.messages {
		if i > 0 {
			e.comma()
		}
		e.raw(`{"from_address":`)
		e.felt(m.from)
		e.feltField("to_address", m.to)
		e.feltsField("payload", m.payload)
		e.raw("}")
	}
	e.raw(`],"events":[`)
	for i := range t.events {
		if i > 0 {
			e.comma()
		}
		ev := &t.events[i]
		e.raw(`{"from_address":`)
		e.felt(ev.from)
		e.feltsField("keys", ev.keys)
		e.feltsField("data", ev.data)
		e.raw("}")
	}
	e.raw("]")
	if t.typ == txDeployAccount {
		e.feltField("contract_address", t.deployed)
	}
	if t.typ == txL1Handler {
		e.feltField("message_hash", t.msgHash)
	}
	if t.reverted {
		e.strField("revert_reason", t.revertReason)
	}
	e.raw(`,"execution_resources":{"l1_gas":`)
	e.uint(t.l1Gas)
	e.raw(`,"l2_gas":`)
	e.uint(t.l2Gas)
	e.raw(`,"l1_data_gas":`)
	e.uint(t.l1Data)
	e.raw("}}")
}

// Views of a block.
const (
	viewReceipts = iota
	viewTxs
	viewHashes
)

func encodeBlock(dst []byte, b *block, status string, view int) []byte {
	e := enc{dst}
	e.header(b, status)
	e.transactions(b.txs, status, view)
	return e.b
}

// transactions writes a block's transactions member, in the view's form, and closes it.
func (e *enc) transactions(txs []tx, status string, view int) {
	e.raw(`,"transactions":[`)
	for i := range txs {
		if i > 0 {
			e.comma()
		}
		t := &txs[i]
		switch view {
		case viewReceipts:
			e.raw(`{"transaction":`)
			e.transaction(t, false)
			e.raw(`,"receipt":`)
			e.receipt(t, status, nil)
			e.raw("}")
		case viewTxs:
			e.transaction(t, true)
		case viewHashes:
			e.felt(t.hash)
		}
	}
	e.raw("]}")
}

// encodePending writes the block being built as a 0.8 node does ("pending"): the next
// block's header without its hash, number, root and status, on parent, with the first half
// of its transactions (the rest come when it is accepted).
func encodePending(dst []byte, next *block, parent felt, view int) []byte {
	e := enc{dst}
	e.raw(`{"parent_hash":`)
	e.felt(parent)
	e.headerRest(next)
	e.transactions(next.txs[:len(next.txs)/2], "ACCEPTED_ON_L2", view)
	return e.b
}

func encodeStateUpdate(dst []byte, b *block, diffs []storageDiff) []byte {
	e := enc{dst}
	e.raw(`{"block_hash":`)
	e.felt(b.hash)
	e.feltField("new_root", b.root)
	e.feltField("old_root", b.oldRoot)
	e.raw(`,"state_diff":{"storage_diffs":[`)
	for i, d := range diffs {
		if i > 0 {
			e.comma()
		}
		e.raw(`{"address":`)
		e.felt(d.addr)
		e.raw(`,"storage_entries":[`)
		for j, s := range d.entries {
			if j > 0 {
				e.comma()
			}
			e.raw(`{"key":`)
			e.felt(s.key)
			e.raw(`,"value":`)
			e.felt(s.value)
			e.raw("}")
		}
		e.raw("]}")
	}
	e.raw(`],"nonces":[`)
	for i, n := range b.nonces {
		if i > 0 {
			e.comma()
		}
		e.raw(`{"contract_address":`)
		e.felt(n.addr)
		e.raw(`,"nonce":`)
		e.hexU(n.nonce)
		e.raw("}")
	}
	e.raw(`],"deployed_contracts":[`)
	for i, d := range b.deployed {
		if i > 0 {
			e.comma()
		}
		e.raw(`{"address":`)
		e.felt(d.addr)
		e.raw(`,"class_hash":`)
		e.felt(d.class)
		e.raw("}")
	}
	e.raw(`],"deprecated_declared_classes":`)
	e.felts(b.deprecatedDecl)
	e.raw(`,"declared_classes":[`)
	for i, h := range b.declared {
		if i > 0 {
			e.comma()
		}
		e.raw(`{"class_hash":`)
		e.felt(h)
		e.raw(`,"compiled_class_hash":`)
		e.felt(compiledClassHash(h))
		e.raw("}")
	}
	e.raw(`],"replaced_classes":[]}}`)
	return e.b
}
