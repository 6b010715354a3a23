package indexer

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
)

// Calls to contracts whose class ABI is known carry their arguments by name, as the
// explorer shows them; the amount of an ERC-20 transfer is a u256 of decimal halves that
// equals the calldata.
func TestCallInputsDecodedWithTheCalleeABI(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 9, Blocks: 30, TxPerBlock: 20})
	d := freshIndex(t, url, simHead(chain))

	var keys []db.TxKey
	if err := d.Select(&keys, `SELECT DISTINCT block_number AS "block", tx_index AS "index" FROM calls
		WHERE entrypoint = 'transfer' AND class_id IS NOT NULL ORDER BY 1, 2 LIMIT 50`); err != nil {
		t.Fatal(err)
	}
	read, err := db.NewStore(d).CallsByTx(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	var calls []struct {
		Calldata db.FeltArray
		Inputs   db.JSON
	}
	for _, c := range read {
		if in := c.DecodedInputs(); c.Entrypoint != nil && *c.Entrypoint == "transfer" && in != nil {
			calls = append(calls, struct {
				Calldata db.FeltArray
				Inputs   db.JSON
			}{c.Calldata, in})
		}
	}
	if len(calls) == 0 {
		t.Fatal("no transfer call has decoded inputs")
	}
	for _, c := range calls {
		var in map[string]json.RawMessage
		if err := json.Unmarshal(c.Inputs, &in); err != nil || len(in) != 2 {
			t.Fatalf("inputs %s: want two named arguments", c.Inputs)
		}
		var amount struct{ Low, High string }
		for name, raw := range in {
			if json.Unmarshal(raw, &amount) == nil && amount.Low != "" {
				low, _ := new(big.Int).SetString(amount.Low, 10)
				if len(c.Calldata) != 3 || low == nil || low.Cmp(c.Calldata[1].Big()) != 0 || amount.High != "0" {
					t.Errorf("%s = %+v does not match calldata %v", name, amount, c.Calldata)
				}
			}
		}
		if amount.Low == "" {
			t.Errorf("inputs %s have no u256 amount", c.Inputs)
		}
	}
}
