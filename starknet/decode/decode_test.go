package decode_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/starkgraph/starkgraph/internal/fixtures"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
	"github.com/starkgraph/starkgraph/starknet/decode"
)

type fixtureBlock struct {
	Transactions []struct {
		Transaction struct {
			Type     string          `json:"type"`
			Calldata []starknet.Felt `json:"calldata"`
		} `json:"transaction"`
		Receipt struct {
			Hash   starknet.Felt `json:"transaction_hash"`
			Events []struct {
				Keys []starknet.Felt `json:"keys"`
				Data []starknet.Felt `json:"data"`
			} `json:"events"`
		} `json:"receipt"`
	} `json:"transactions"`
}

func loadBlocks(t *testing.T, files ...string) []fixtureBlock {
	t.Helper()
	var out []fixtureBlock
	for _, f := range files {
		var b fixtureBlock
		if err := json.Unmarshal(fixtures.Read(t, f), &b); err != nil {
			t.Fatal(f, err)
		}
		out = append(out, b)
	}
	return out
}

var (
	sepolia = []string{"sepolia-56377/blocks/56377.json", "sepolia-56377/blocks/56378.json", "sepolia-56377/blocks/56379.json"}
	mainnet = []string{"mainnet-763497/blocks/763497.json"}
	recent  = []string{"sepolia-3100000/blocks/3100000.json"}
)

func TestExecuteOnFixtures(t *testing.T) {
	account, err := class.Parse(fixtures.Read(t, "sepolia-56377/classes/0x29927c8af6bccf3f6fda035981e765a7bdbf18a2dc0d630494f8758aa908e2b.json"))
	if err != nil {
		t.Fatal(err)
	}
	layouts := map[decode.Layout]int{}
	calls := 0
	for _, files := range [][]string{sepolia, mainnet, recent} {
		for _, b := range loadBlocks(t, files...) {
			for _, tx := range b.Transactions {
				if tx.Transaction.Type != "INVOKE" {
					continue
				}
				ex := decode.DecodeExecute(tx.Transaction.Calldata)
				if ex.Partial {
					t.Errorf("tx %s: partial execute decoding", tx.Receipt.Hash)
					continue
				}
				layouts[ex.Layout]++
				calls += len(ex.Calls)
				if ex.Layout != decode.LayoutCairo1 {
					continue
				}
				// The Cairo 1 layout is exactly the account ABI's Array<Call>: decoding the
				// same calldata against the Argent ABI must agree.
				d := decode.DecodeCall(account.ABI, starknet.Selector("__execute__"), tx.Transaction.Calldata)
				if d.Partial || d.Function != "__execute__" {
					t.Fatalf("tx %s: ABI decoding partial: %v", tx.Receipt.Hash, d.Err)
				}
				abiCalls := d.Inputs[0].Value.([]any)
				if len(abiCalls) != len(ex.Calls) {
					t.Fatalf("tx %s: %d calls by ABI, %d by layout", tx.Receipt.Hash, len(abiCalls), len(ex.Calls))
				}
				for i, c := range abiCalls {
					members := c.([]decode.Value)
					if members[0].Value != ex.Calls[i].To.Padded() || members[1].Value != ex.Calls[i].Selector.Hex() ||
						len(members[2].Value.([]any)) != len(ex.Calls[i].Calldata) {
						t.Errorf("tx %s call %d: ABI %v, layout %+v", tx.Receipt.Hash, i, members, ex.Calls[i])
					}
				}
			}
		}
	}
	if layouts[decode.LayoutCairo0] != 1 || layouts[decode.LayoutCairo1] != 152 {
		t.Errorf("layouts %v, want 1 cairo0 and 152 cairo1", layouts)
	}
	if calls < 153 {
		t.Errorf("only %d calls", calls)
	}
}

// erc20ABI is the OpenZeppelin Cairo 1 ERC-20 transfer entry, enough to decode a transfer.
const erc20ABI = `[{"type":"struct","name":"core::integer::u256","members":[{"name":"low","type":"core::integer::u128"},{"name":"high","type":"core::integer::u128"}]},
 {"type":"interface","name":"IERC20","items":[{"type":"function","name":"transfer","inputs":[{"name":"recipient","type":"core::starknet::contract_address::ContractAddress"},{"name":"amount","type":"core::integer::u256"}],"outputs":[{"type":"core::bool"}],"state_mutability":"external"}]}]`

func TestDecodeCairo0Multicall(t *testing.T) {
	// mainnet 763497, tx 0x61ed6ea7...: a Cairo 0 account sending one ERC-20 transfer.
	var cd []starknet.Felt
	for _, b := range loadBlocks(t, mainnet...) {
		for _, tx := range b.Transactions {
			if tx.Receipt.Hash.Hex() == "0x61ed6ea716d19bb1c1afbf46c559baf579b1f0d8523525a123966b82a1ef4f6" {
				cd = tx.Transaction.Calldata
			}
		}
	}
	ex := decode.DecodeExecute(cd)
	if ex.Layout != decode.LayoutCairo0 || len(ex.Calls) != 1 || ex.Calls[0].Selector != starknet.Selector("transfer") {
		t.Fatalf("execute = %+v", ex)
	}
	abi, err := class.ParseABI([]byte(erc20ABI))
	if err != nil {
		t.Fatal(err)
	}
	d := decode.DecodeCall(abi, ex.Calls[0].Selector, ex.Calls[0].Calldata)
	if d.Partial || d.Function != "transfer" {
		t.Fatalf("decoded %+v", d)
	}
	got, _ := json.Marshal(d.Inputs)
	want := `[{"name":"recipient","type":"core::starknet::contract_address::ContractAddress","value":"0x06e0bd60b459d5922511618ecba872b0c8a9a3876075886979d68d9b0722c280"},` +
		`{"name":"amount","type":"core::integer::u256","value":{"low":"0x2ac5fd","high":"0x0","decimal":"2803197"}}]`
	if string(got) != want {
		t.Errorf("inputs\n got %s\nwant %s", got, want)
	}
	if ex := decode.DecodeExecuteAs(cd, decode.LayoutFor(0)); ex.Partial || len(ex.Calls) != 1 {
		t.Errorf("as cairo0: %+v", ex)
	}
	// As the other layout it does not parse cleanly.
	if ex := decode.DecodeExecuteAs(cd, decode.LayoutCairo1); !ex.Partial {
		t.Errorf("cairo1 reading of a cairo0 calldata not partial: %+v", ex)
	}
}

func TestExecuteGarbage(t *testing.T) {
	f := starknet.FeltFromUint64
	huge := starknet.MustFelt("0x7ffffffffffffffffffffffffff")
	for _, cd := range [][]starknet.Felt{
		nil,
		{huge},
		{f(2), f(1), f(2), f(1), f(9)},       // second call missing
		{f(1), f(1), f(2), huge},             // length overflow
		{f(1), f(1), f(2), f(0), f(5), f(1)}, // cairo0 with offset beyond data
	} {
		ex := decode.DecodeExecute(cd)
		if !ex.Partial {
			t.Errorf("DecodeExecute(%v) = %+v, want partial", cd, ex)
		}
	}
	ex := decode.DecodeExecute([]starknet.Felt{f(2), f(1), f(2), f(1), f(9), f(3), f(4), f(0)})
	if ex.Partial || ex.Layout != decode.LayoutCairo1 || len(ex.Calls) != 2 || ex.Calls[1].To != f(3) {
		t.Errorf("two-call cairo1: %+v", ex)
	}
}

const richABI = `[
 {"type":"struct","name":"core::integer::u256","members":[{"name":"low","type":"core::integer::u128"},{"name":"high","type":"core::integer::u128"}]},
 {"type":"struct","name":"demo::Point","members":[{"name":"x","type":"core::integer::i32"},{"name":"flag","type":"core::bool"}]},
 {"type":"enum","name":"core::bool","variants":[{"name":"False","type":"()"},{"name":"True","type":"()"}]},
 {"type":"enum","name":"core::option::Option::<core::felt252>","variants":[{"name":"Some","type":"core::felt252"},{"name":"None","type":"()"}]},
 {"type":"function","name":"rich","inputs":[
   {"name":"a","type":"core::integer::u8"},
   {"name":"neg","type":"core::integer::i8"},
   {"name":"name","type":"core::byte_array::ByteArray"},
   {"name":"ids","type":"core::array::Span::<core::integer::u256>"},
   {"name":"pair","type":"(core::felt252, core::bool)"},
   {"name":"maybe","type":"core::option::Option::<core::felt252>"},
   {"name":"points","type":"core::array::Array::<demo::Point>"}],"outputs":[],"state_mutability":"external"},
 {"type":"function","name":"weird","inputs":[{"name":"x","type":"demo::Unknown"}],"outputs":[],"state_mutability":"view"},
 {"type":"function","name":"legacy","inputs":[{"name":"to","type":"felt"},{"name":"calldata_len","type":"felt"},{"name":"calldata","type":"felt*"},{"name":"amount","type":"Uint256"}],"outputs":[]}
]`

func TestDecodeInputs(t *testing.T) {
	abi, err := class.ParseABI([]byte(richABI))
	if err != nil {
		t.Fatal(err)
	}
	f := starknet.FeltFromUint64
	minusOne, _ := starknet.FeltFromBig(new(big.Int).Sub(starknet.Prime(), big.NewInt(1)))
	minus5, _ := starknet.FeltFromBig(new(big.Int).Sub(starknet.Prime(), big.NewInt(5)))
	abc, _ := starknet.EncodeShortString("abc")
	cd := []starknet.Felt{
		f(200), minusOne, // a, neg
		f(0), abc, f(3), // ByteArray "abc"
		f(2), f(1), f(0), f(2), f(1), // Span<u256> [1, 2^128+2]
		f(7), f(1), // tuple
		f(0), f(9), // Option::Some(9)
		f(1), minus5, f(1), // [Point{-5, true}]
	}
	d := decode.DecodeCall(abi, starknet.Selector("rich"), cd)
	if d.Partial {
		t.Fatalf("partial: %v", d.Err)
	}
	got, _ := json.Marshal(d.Inputs)
	want := `[{"name":"a","type":"core::integer::u8","value":"200"},` +
		`{"name":"neg","type":"core::integer::i8","value":"-1"},` +
		`{"name":"name","type":"core::byte_array::ByteArray","value":"abc"},` +
		`{"name":"ids","type":"core::array::Span::\u003ccore::integer::u256\u003e","value":[{"low":"0x1","high":"0x0","decimal":"1"},{"low":"0x2","high":"0x1","decimal":"340282366920938463463374607431768211458"}]},` +
		`{"name":"pair","type":"(core::felt252, core::bool)","value":["0x7",true]},` +
		`{"name":"maybe","type":"core::option::Option::\u003ccore::felt252\u003e","value":{"variant":"Some","value":"0x9"}},` +
		`{"name":"points","type":"core::array::Array::\u003cdemo::Point\u003e","value":[[{"name":"x","type":"core::integer::i32","value":"-5"},{"name":"flag","type":"core::bool","value":true}]]}]`
	if string(got) != want {
		t.Errorf("rich\n got %s\nwant %s", got, want)
	}

	// Cairo 0: a felt* array takes its length from the felt before it.
	d = decode.DecodeCall(abi, starknet.Selector("legacy"), []starknet.Felt{f(1), f(2), f(10), f(11), f(5), f(0)})
	got, _ = json.Marshal(d.Inputs)
	if d.Partial || string(got) != `[{"name":"to","type":"felt","value":"0x1"},{"name":"calldata_len","type":"felt","value":"0x2"},{"name":"calldata","type":"felt*","value":["0xa","0xb"]},{"name":"amount","type":"Uint256","value":{"low":"0x5","high":"0x0","decimal":"5"}}]` {
		t.Errorf("legacy = %s (%v)", got, d.Err)
	}

	partial := []struct {
		name string
		sel  string
		cd   []starknet.Felt
	}{
		{"unknown type", "weird", []starknet.Felt{f(1)}},
		{"unknown selector", "nope", []starknet.Felt{f(1)}},
		{"too short", "rich", cd[:8]},
		{"left over", "rich", append(append([]starknet.Felt{}, cd...), f(1))},
		{"u8 overflow", "rich", append([]starknet.Felt{f(256)}, cd[1:]...)},
		{"bad bool", "rich", append(append([]starknet.Felt{}, cd[:11]...), append([]starknet.Felt{f(2)}, cd[12:]...)...)},
		{"huge array", "rich", append(append([]starknet.Felt{}, cd[:5]...), starknet.MustFelt("0xffffffffffffffffff"))},
		{"bad enum", "rich", append(append([]starknet.Felt{}, cd[:12]...), f(5), f(9), f(0))},
	}
	for _, p := range partial {
		d := decode.DecodeCall(abi, starknet.Selector(p.sel), p.cd)
		if !d.Partial || d.Err == nil {
			t.Errorf("%s: not partial: %+v", p.name, d)
		}
	}
}

func TestTransfersOnFixtures(t *testing.T) {
	tests := []struct {
		files                 []string
		transfers, erc721     int
		legacy, cairo1, keys5 int
	}{
		{sepolia, 161, 0, 139, 22, 0},
		{mainnet, 74, 1, -1, -1, 1},
		{recent, 3, 0, 3, 0, 0},
	}
	for _, tt := range tests {
		n, erc721, legacy, cairo1 := 0, 0, 0, 0
		for _, b := range loadBlocks(t, tt.files...) {
			for _, tx := range b.Transactions {
				for _, ev := range tx.Receipt.Events {
					isTransfer := len(ev.Keys) > 0 && ev.Keys[0] == decode.TransferSelector
					ts, ok := decode.ClassifyTransfer(ev.Keys, ev.Data)
					if isTransfer != ok {
						t.Errorf("tx %s: event keys=%d data=%d: classified %v", tx.Receipt.Hash, len(ev.Keys), len(ev.Data), ok)
						continue
					}
					if !ok {
						continue
					}
					n++
					tr := ts[0]
					switch {
					case tr.Standard == decode.ERC721:
						erc721++
						if len(ev.Keys) != 5 || tr.TokenID == nil || tr.Amount.Cmp(big.NewInt(1)) != 0 {
							t.Errorf("erc721 %+v", tr)
						}
					case tr.Ambiguous:
						legacy++
						if tr.From != ev.Data[0] || tr.To != ev.Data[1] {
							t.Errorf("legacy from/to")
						}
					default:
						cairo1++
						if tr.From != ev.Keys[1] || tr.To != ev.Keys[2] {
							t.Errorf("cairo1 from/to")
						}
					}
				}
			}
		}
		if n != tt.transfers || erc721 != tt.erc721 || (tt.legacy >= 0 && (legacy != tt.legacy || cairo1 != tt.cairo1)) {
			t.Errorf("%v: %d transfers (%d erc721, %d legacy, %d cairo1); want %d (%d, %d, %d)",
				tt.files, n, erc721, legacy, cairo1, tt.transfers, tt.erc721, tt.legacy, tt.cairo1)
		}
	}
}

func TestClassifyTransferLayouts(t *testing.T) {
	f := starknet.FeltFromUint64
	sel := decode.TransferSelector
	single := decode.TransferSingleSelector
	batch := decode.TransferBatchSelector
	max128 := starknet.MustFelt("0xffffffffffffffffffffffffffffffff")
	tests := []struct {
		name       string
		keys, data []starknet.Felt
		want       string // fmt of the transfers, "" for not a transfer
	}{
		{"legacy erc20", []starknet.Felt{sel}, []starknet.Felt{f(1), f(2), f(5), f(1)}, "ERC20 0x1->0x2 id=<nil> amount=340282366920938463463374607431768211461 ambiguous"},
		{"oz erc20", []starknet.Felt{sel, f(1), f(2)}, []starknet.Felt{max128, max128}, "ERC20 0x1->0x2 id=<nil> amount=115792089237316195423570985008687907853269984665640564039457584007913129639935"},
		{"erc721", []starknet.Felt{sel, f(0), f(2), f(7), f(0)}, nil, "ERC721 0x0->0x2 id=7 amount=1"},
		{"1155 single cairo1", []starknet.Felt{single, f(9), f(1), f(2)}, []starknet.Felt{f(3), f(0), f(4), f(0)}, "ERC1155 0x1->0x2 id=3 amount=4 op=0x9"},
		{"1155 single legacy", []starknet.Felt{single}, []starknet.Felt{f(9), f(1), f(2), f(3), f(0), f(4), f(0)}, "ERC1155 0x1->0x2 id=3 amount=4 op=0x9"},
		{"1155 batch", []starknet.Felt{batch, f(9), f(1), f(2)}, []starknet.Felt{f(2), f(3), f(0), f(5), f(0), f(2), f(10), f(0), f(20), f(0)}, "ERC1155 0x1->0x2 id=3 amount=10 op=0x9;ERC1155 0x1->0x2 id=5 amount=20 op=0x9"},
		{"1155 batch lengths differ", []starknet.Felt{batch, f(9), f(1), f(2)}, []starknet.Felt{f(2), f(3), f(0), f(5), f(0), f(1), f(10), f(0), f(20), f(0)}, ""},
		{"bad u256", []starknet.Felt{sel, f(1), f(2)}, []starknet.Felt{starknet.MustFelt("0x100000000000000000000000000000000"), f(0)}, ""},
		{"other event", []starknet.Felt{starknet.Selector("Approval"), f(1), f(2)}, []starknet.Felt{f(1), f(0)}, ""},
		{"transfer wrong shape", []starknet.Felt{sel, f(1)}, []starknet.Felt{f(1)}, ""},
		{"no keys", nil, []starknet.Felt{f(1)}, ""},
	}
	for _, tt := range tests {
		ts, ok := decode.ClassifyTransfer(tt.keys, tt.data)
		got := ""
		for i, tr := range ts {
			if i > 0 {
				got += ";"
			}
			got += fmt.Sprintf("%s %s->%s id=%v amount=%v", tr.Standard, tr.From, tr.To, tr.TokenID, tr.Amount)
			if tr.Ambiguous {
				got += " ambiguous"
			}
			if tr.Standard == decode.ERC1155 {
				got += " op=" + tr.Operator.Hex()
			}
		}
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("%s: got %q ok=%v, want %q", tt.name, got, ok, tt.want)
		}
	}
}

func TestDecodeEvent(t *testing.T) {
	// The Argent account class from the fixtures emits TransactionExecuted(hash: key,
	// response: Span<Span<felt252>> data) after every call; block 56377 has such events.
	account, err := class.Parse(fixtures.Read(t, "sepolia-56377/classes/0x29927c8af6bccf3f6fda035981e765a7bdbf18a2dc0d630494f8758aa908e2b.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := starknet.FeltFromUint64
	sel := starknet.Selector("TransactionExecuted")
	d := decode.DecodeEvent(account.ABI, []starknet.Felt{sel, f(0xabc)}, []starknet.Felt{f(2), f(1), f(7), f(0)})
	got, _ := json.Marshal(d)
	if d.Partial || d.Name != "argent::account::argent_account::ArgentAccount::TransactionExecuted" ||
		!json.Valid(got) || fmt.Sprint(d.Fields[1].Value) != "[[0x7] []]" || d.Fields[0].Value != "0xabc" {
		t.Errorf("decoded %+v (%v)", d, d.Err)
	}

	// Every TransactionExecuted event of the fixtures decodes completely.
	n := 0
	for _, b := range loadBlocks(t, sepolia...) {
		for _, tx := range b.Transactions {
			for _, ev := range tx.Receipt.Events {
				if ev.Keys[0] != sel {
					continue
				}
				n++
				if d := decode.DecodeEvent(account.ABI, ev.Keys, ev.Data); d.Partial || d.Fields[0].Value != ev.Keys[1].Hex() {
					t.Errorf("tx %s: %v", tx.Receipt.Hash, d.Err)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no TransactionExecuted events in the fixtures")
	}
	t.Logf("%d TransactionExecuted events decoded", n)

	// Cairo 0 event declaration: keys and data lists.
	abi, err := class.ParseABI([]byte(`[{"type":"struct","name":"Uint256","members":[{"name":"low","type":"felt","offset":0},{"name":"high","type":"felt","offset":1}]},
	  {"type":"event","name":"Transfer","keys":[],"data":[{"name":"from_","type":"felt"},{"name":"to","type":"felt"},{"name":"value","type":"Uint256"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	d = decode.DecodeEvent(abi, []starknet.Felt{decode.TransferSelector}, []starknet.Felt{f(1), f(2), f(300), f(0)})
	if d.Partial || d.Name != "Transfer" || d.Fields[2].Value.(decode.U256).Decimal != "300" {
		t.Errorf("cairo0 transfer %+v", d)
	}
	for _, bad := range []struct{ keys, data []starknet.Felt }{
		{nil, nil},
		{[]starknet.Felt{f(5)}, nil},
		{[]starknet.Felt{decode.TransferSelector}, []starknet.Felt{f(1)}},
		{[]starknet.Felt{decode.TransferSelector, f(9)}, []starknet.Felt{f(1), f(2), f(300), f(0)}},
	} {
		if d := decode.DecodeEvent(abi, bad.keys, bad.data); !d.Partial || d.Err == nil {
			t.Errorf("DecodeEvent(%v, %v) not partial", bad.keys, bad.data)
		}
	}
}
