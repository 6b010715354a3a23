package indexer

import (
	"context"
	"strings"
	"sync"
	"testing"

	json "github.com/goccy/go-json"
	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
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
	if len(lean) == 0 {
		t.Fatal("the simulated chain has no calls")
	}
	// Cut from the calldata of whole rows in hand (/beta/tx-activity's form), the same.
	ofWhole := readCallsOfWhole(t, db.NewStore(d), keys)
	if len(ofWhole) != len(lean) {
		t.Fatalf("%d calls read from whole rows, %d by their keys", len(ofWhole), len(lean))
	}
	for i, w := range ofWhole {
		l := lean[i]
		if w.BlockNumber != l.BlockNumber || w.TxIndex != l.TxIndex || w.Index != l.Index ||
			hexList(w.CalldataList()) != hexList(l.CalldataList()) || string(w.DecodedInputs()) != string(l.DecodedInputs()) {
			t.Fatalf("call %d/%d/%d from whole rows: calldata %s inputs %s; by keys: call %d/%d/%d calldata %s inputs %s",
				w.BlockNumber, w.TxIndex, w.Index, hexList(w.CalldataList()), w.DecodedInputs(),
				l.BlockNumber, l.TxIndex, l.Index, hexList(l.CalldataList()), l.DecodedInputs())
		}
	}

	// The old form of every call, as the indexer wrote it before 00043.
	if named := toStoredForm(t, d, keys); named < len(lean)/2 {
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
	t.Logf("%d calls, %d with a u256, the same in both forms", len(old), u256)
}

// toStoredForm rewrites the calls of keys as the indexer wrote them before migration
// 00043: their own calldata, and their inputs as legacyInputs made them. It returns how
// many calls have inputs.
func toStoredForm(t testing.TB, d *sqlx.DB, keys []db.TxKey) (named int) {
	t.Helper()
	ctx := context.Background()
	calls := readAllCalls(t, db.NewStore(d), keys)
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
	for _, c := range calls {
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
	return named
}

// readAllCalls reads the calls of keys as the APIs do, a page of 25 transactions at a time.
func readAllCalls(t testing.TB, s *db.Store, keys []db.TxKey) []*db.Call {
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

// readCallsOfWhole reads the calls of keys as /beta/tx-activity does: a page of 25
// transactions read whole, then their calls with the calldata of those rows.
func readCallsOfWhole(t testing.TB, s *db.Store, keys []db.TxKey) []*db.Call {
	t.Helper()
	ctx := context.Background()
	var out []*db.Call
	for i := 0; i < len(keys); i += 25 {
		txs, err := s.TransactionsByKey(ctx, keys[i:min(i+25, len(keys))])
		if err != nil {
			t.Fatal(err)
		}
		calls, err := s.CallsOfTransactions(ctx, txs)
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

// BenchmarkCallsPage reads the calls of a page of 25 transactions of the busiest sender,
// with their inputs, as /beta/txns?sender_address= does: "lean" rows (calldata cut from
// the transaction's, inputs decoded with the cached ABI) against the same calls "stored"
// as before migration 00043 (in a second database indexed alike, rewritten in the old
// form). "decode" is the decoding alone, of the lean page's calls already read. Alternate
// the forms by running it several times:
// for i in 1 2 3; do go test ./indexer/ -run XXX -bench CallsPage -benchtime 300x; done
func BenchmarkCallsPage(b *testing.B) {
	lean, stored, keys := callsPageSetup(b)
	ctx := context.Background()
	read := func(s *db.Store) (calls []*db.Call, bytes int) {
		calls, err := s.CallsByTx(ctx, keys)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range calls {
			bytes += len(c.DecodedInputs())
		}
		return calls, bytes
	}
	for _, form := range []struct {
		name string
		d    *sqlx.DB
	}{{"lean", lean}, {"stored", stored}} {
		b.Run(form.name, func(b *testing.B) {
			s := db.NewStore(form.d)
			calls, bytes := read(s) // the ABIs cached, as on a server that runs
			b.ReportAllocs()
			for b.Loop() {
				read(s)
			}
			b.ReportMetric(float64(len(calls)), "calls/op")
			b.ReportMetric(float64(bytes), "inputbytes/op")
		})
	}
	b.Run("decode", func(b *testing.B) {
		calls, _ := read(db.NewStore(lean))
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range calls {
				_ = c.DecodedInputs()
			}
		}
	})
	// The busiest sender's calls mostly go to classes the simulator gives no ABI; a page of
	// 25 calls that all have inputs (ERC-20 transfers) costs this much to decode.
	b.Run("decode-named", func(b *testing.B) {
		var named []db.TxKey
		if err := lean.Select(&named, `SELECT block_number AS "block", tx_index AS "index" FROM calls
			WHERE entrypoint = 'transfer' AND class_id IS NOT NULL GROUP BY 1, 2 HAVING count(*) = 1 ORDER BY 1 DESC, 2 DESC LIMIT 25`); err != nil {
			b.Fatal(err)
		}
		calls, err := db.NewStore(lean).CallsByTx(ctx, named)
		if err != nil {
			b.Fatal(err)
		}
		bytes := 0
		for _, c := range calls {
			bytes += len(c.DecodedInputs())
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range calls {
				_ = c.DecodedInputs()
			}
		}
		b.ReportMetric(float64(len(calls)), "calls/op")
		b.ReportMetric(float64(bytes), "inputbytes/op")
	})
}

var callsPage struct {
	sync.Once
	lean, stored *sqlx.DB
	keys         []db.TxKey
}

// callsPageSetup indexes the simulated chain twice, once for each form, for every run of
// BenchmarkCallsPage.
func callsPageSetup(b *testing.B) (lean, stored *sqlx.DB, keys []db.TxKey) {
	callsPage.Do(func() {
		chain, url := simNode(b, sim.Config{Seed: 9, Blocks: 60, TxPerBlock: 20})
		var dbs [2]*sqlx.DB
		for i := range dbs {
			dbs[i] = dbtest.New(b)
			runIndexer(b, dbs[i], url, 0, simHead(chain), func(c *Config) { c.MaxReorgDepth = 1 })
		}
		if err := dbs[0].Select(&keys, `SELECT block_number AS "block", tx_index AS "index" FROM transactions
			WHERE sender_id = (SELECT sender_id FROM transactions WHERE sender_id IS NOT NULL
				GROUP BY 1 ORDER BY count(*) DESC LIMIT 1)
			ORDER BY 1 DESC, 2 DESC LIMIT 25`); err != nil || len(keys) < 25 {
			b.Fatalf("the busiest sender's transactions: %d, %v", len(keys), err)
		}
		toStoredForm(b, dbs[1], keys)
		callsPage.lean, callsPage.stored, callsPage.keys = dbs[0], dbs[1], keys
	})
	if callsPage.lean == nil {
		b.Skip("setup failed")
	}
	return callsPage.lean, callsPage.stored, callsPage.keys
}
