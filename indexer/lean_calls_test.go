package indexer

import (
	"context"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
	"github.com/starkgraph/starkgraph/starknet/decode"
)

// Calls written since migration 00043 keep neither their calldata (a position in their
// transaction's) nor their inputs (decoded when read). Read back, they must be what the
// rows written before held, byte for byte: the test indexes the simulated chain, reads
// every call, then rewrites every call into the old form (its own calldata, and the inputs
// the indexer wrote then, through jsonb, with the indexer's code of then: legacyInputs) and
// reads them again, as stored rows.
func TestLeanCallsReadAsTheStoredOnes(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 9, Blocks: 30, TxPerBlock: 20})
	d := freshIndex(t, url, simHead(chain))
	ctx := context.Background()

	var stored, sliced int
	if err := d.Get(&stored, `SELECT count(*) FROM calls WHERE calldata IS NOT NULL OR inputs IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if err := d.Get(&sliced, `SELECT count(*) FROM calls WHERE calldata_offset > 0`); err != nil {
		t.Fatal(err)
	}
	if stored != 0 || sliced == 0 {
		t.Fatalf("%d calls store calldata or inputs, %d are slices past their transaction's first felt: want 0 and some", stored, sliced)
	}

	var keys []db.TxKey
	if err := d.Select(&keys, `SELECT block_number AS "block", tx_index AS "index" FROM transactions ORDER BY 1, 2`); err != nil {
		t.Fatal(err)
	}
	lean := readAllCalls(t, db.NewStore(d), keys)

	// The old form of every call, as the indexer wrote it before 00043.
	abis := map[string]*class.ABI{}
	var classes []struct {
		Hash db.Felt `db:"hash"`
		ABI  db.JSON `db:"abi"`
	}
	if err := d.Select(&classes, `SELECT hash, abi FROM classes`); err != nil {
		t.Fatal(err)
	}
	for _, c := range classes {
		abis[string(c.Hash)] = parseStoredABI([]byte(c.ABI))
	}
	tx := d.MustBeginTx(ctx, nil)
	named := 0
	for _, c := range lean {
		var inputs db.JSON
		if abi := abis[string(c.ClassHash)]; abi != nil {
			felts := make([]starknet.Felt, len(c.Calldata))
			for i, f := range c.Calldata {
				felts[i] = f.Starknet()
			}
			inputs = legacyInputs(abi, c.Selector.Starknet(), felts)
		}
		if inputs != nil {
			named++
		}
		if _, err := tx.Exec(`UPDATE calls SET calldata = $1, inputs = $2, calldata_offset = NULL, calldata_length = NULL
			WHERE block_number = $3 AND tx_index = $4 AND call_index = $5`,
			c.Calldata, inputs, c.BlockNumber, c.TxIndex, c.Index); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if named < len(lean)/2 {
		t.Fatalf("only %d of %d calls have named inputs", named, len(lean))
	}
	old := readAllCalls(t, db.NewStore(d), keys)

	if len(old) != len(lean) {
		t.Fatalf("%d calls read in the old form, %d in the lean one", len(old), len(lean))
	}
	diff, u256 := 0, 0
	for i := range old {
		o, l := old[i], lean[i]
		oIn, lIn := string(o.DecodedInputs()), string(l.DecodedInputs())
		if strings.Contains(oIn, `"low": `) {
			u256++
		}
		if hexList(o.CalldataList()) != hexList(l.CalldataList()) || oIn != lIn {
			if diff++; diff <= 3 {
				t.Errorf("call %d/%d/%d: stored calldata %s inputs %s; lean calldata %s inputs %s", o.BlockNumber, o.TxIndex, o.Index,
					hexList(o.CalldataList()), oIn, hexList(l.CalldataList()), lIn)
			}
		}
	}
	if diff > 0 {
		t.Fatalf("%d of %d calls differ", diff, len(old))
	}
	if u256 == 0 {
		t.Fatal("no inputs hold a u256")
	}
	t.Logf("%d calls, %d with named inputs (%d with a u256), the same in both forms", len(old), named, u256)
}

// readAllCalls reads the calls of keys as the APIs do, a page of 25 transactions at a time.
func readAllCalls(t *testing.T, s *db.Store, keys []db.TxKey) []*db.Call {
	t.Helper()
	var out []*db.Call
	for i := 0; i < len(keys); i += 25 {
		calls, err := s.CallsByTx(context.Background(), keys[i:min(i+25, len(keys))])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, calls...)
	}
	return out
}

func hexList(fs []db.Felt) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Hex())
		b.WriteByte(',')
	}
	return b.String()
}

// legacyInputs is the indexer's decodeInputs before migration 00043, kept as it was: the
// JSON it wrote into calls.inputs.
func legacyInputs(abi *class.ABI, selector starknet.Felt, calldata []starknet.Felt) db.JSON {
	d := decode.DecodeCall(abi, selector, calldata)
	if d.Function == "" || d.Partial {
		return nil
	}
	b, err := json.Marshal(legacyNamedValues(d.Inputs))
	if err != nil {
		return nil
	}
	return db.JSON(b)
}

func legacyNamedValues(vals []decode.Value) map[string]any {
	out := make(map[string]any, len(vals))
	for _, v := range vals {
		out[v.Name] = legacyExplorerValue(v.Value)
	}
	return out
}

func legacyExplorerValue(v any) any {
	switch x := v.(type) {
	case decode.U256:
		return map[string]string{"low": legacyDecimal(x.Low), "high": legacyDecimal(x.High)}
	case []decode.Value:
		return legacyNamedValues(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = legacyExplorerValue(e)
		}
		return out
	case decode.Variant:
		return map[string]any{x.Name: legacyExplorerValue(x.Value)}
	}
	return v
}

func legacyDecimal(s string) string {
	f, err := starknet.ParseFelt(s)
	if err != nil {
		return s
	}
	return f.Decimal()
}
