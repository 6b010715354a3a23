package rpc

import (
	"testing"

	json "github.com/goccy/go-json"
)

// FuzzBlockJSON checks that no JSON, however broken, makes block or state-update decoding
// panic, and that an accepted block has its required members.
func FuzzBlockJSON(f *testing.F) {
	f.Add([]byte(`{"status":"ACCEPTED_ON_L2","block_hash":"0x1","parent_hash":"0x0","block_number":1,"new_root":"0x2","timestamp":3,"sequencer_address":"0x4","l1_gas_price":{"price_in_wei":"0x1","price_in_fri":"0x2"},"transactions":[]}`))
	f.Add([]byte(`{"status":"ACCEPTED_ON_L2","block_hash":"0x1","parent_hash":"0x0","block_number":1,"new_root":"0x2","timestamp":3,"sequencer_address":"0x4","l1_gas_price":{"price_in_wei":"0x1","price_in_fri":"0x2"},"transactions":[{"transaction":{"type":"INVOKE","version":"0x1","sender_address":"0x1","nonce":"0x0","calldata":[]},"receipt":{"type":"INVOKE","transaction_hash":"0x5","actual_fee":{"amount":"0x1","unit":"WEI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","events":[{"from_address":"0x1","keys":[],"data":[]}]}}]}`))
	f.Add([]byte(`{"block_hash":"0x1","new_root":"0x2","old_root":"0x3","state_diff":{"nonces":[{"contract_address":"0x1","nonce":"0x2"}]}}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var w *wireBlock
		if json.Unmarshal(data, &w) == nil && w != nil {
			if b, err := w.normalise(); err == nil {
				for _, tx := range b.Transactions {
					if tx.Type == "" || tx.Receipt.Events == nil {
						t.Fatalf("accepted a transaction without type or events: %+v", tx)
					}
				}
			}
		}
		var s *wireStateUpdate
		if json.Unmarshal(data, &s) == nil && s != nil {
			s.normalise()
		}
	})
}
