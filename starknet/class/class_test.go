package class_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/internal/fixtures"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
)

const accountClass = "0x29927c8af6bccf3f6fda035981e765a7bdbf18a2dc0d630494f8758aa908e2b"

func TestAccountClassFromFixtures(t *testing.T) {
	for _, set := range []string{"sepolia-56377", "sepolia-3100000"} {
		c, err := class.Parse(fixtures.Read(t, set+"/classes/"+accountClass+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if c.Kind != class.KindSierra || c.CairoVersion != 1 || c.ContractClassVersion != "0.1.0" {
			t.Errorf("%s: kind %s cairo %d version %s", set, c.Kind, c.CairoVersion, c.ContractClassVersion)
		}
		want := class.Flags{IsAccount: true}
		if c.Flags != want {
			t.Errorf("%s: flags %+v, want %+v", set, c.Flags, want)
		}
		if len(c.EntryPoints.External) != 32 || len(c.EntryPoints.Constructor) != 1 {
			t.Errorf("entry points %d/%d", len(c.EntryPoints.External), len(c.EntryPoints.Constructor))
		}
		if !c.HasEntryPoint(starknet.Selector("__execute__")) {
			t.Error("no __execute__ entry point")
		}
		fn, ok := c.ABI.Function("__execute__")
		if !ok || fn.Interface != "argent::common::account::IAccount" || len(fn.Inputs) != 1 ||
			fn.Inputs[0].Type != "core::array::Array::<core::starknet::account::Call>" {
			t.Errorf("__execute__ = %+v", fn)
		}
		if _, ok := c.ABI.Structs["core::starknet::account::Call"]; !ok {
			t.Error("Call struct missing")
		}
		if _, ok := c.ABI.Enums["core::bool"]; !ok {
			t.Error("bool enum missing")
		}
		if len(c.ABI.Events) == 0 || !strings.HasPrefix(c.ABIRaw, "[") {
			t.Error("events or raw abi missing")
		}
	}
}

func sierra(t *testing.T, abi string) []byte {
	t.Helper()
	abiStr, _ := json.Marshal(abi)
	return []byte(`{"sierra_program":["0x1"],"contract_class_version":"0.1.0","entry_points_by_type":{"EXTERNAL":[],"L1_HANDLER":[],"CONSTRUCTOR":[]},"abi":` + string(abiStr) + `}`)
}

func fn(name string) string {
	return `{"type":"function","name":"` + name + `","inputs":[],"outputs":[],"state_mutability":"view"}`
}

func iface(names ...string) string {
	var items []string
	for _, n := range names {
		items = append(items, fn(n))
	}
	return `[{"type":"interface","name":"I","items":[` + strings.Join(items, ",") + `]}]`
}

func TestTokenFlags(t *testing.T) {
	tests := []struct {
		name string
		abi  string
		want class.Flags
	}{
		{"oz erc20 snake", iface("name", "symbol", "decimals", "total_supply", "balance_of", "allowance", "transfer", "transfer_from", "approve"), class.Flags{IsERC20: true}},
		{"erc20 camel", iface("totalSupply", "balanceOf", "transfer", "transferFrom"), class.Flags{IsERC20: true}},
		{"erc721", iface("balance_of", "owner_of", "safe_transfer_from", "transfer_from", "approve", "token_uri"), class.Flags{IsERC721: true}},
		{"erc721 camel with totalSupply", iface("balanceOf", "ownerOf", "tokenURI", "totalSupply", "transferFrom"), class.Flags{IsERC721: true}},
		{"erc1155", iface("balance_of", "balance_of_batch", "safe_transfer_from", "safe_batch_transfer_from", "uri"), class.Flags{IsERC1155: true}},
		{"proxy getter", iface("get_implementation", "upgrade"), class.Flags{IsProxy: true}},
		{"upgradeable is not a proxy", iface("upgrade", "owner"), class.Flags{}},
		{"transfer alone", iface("transfer"), class.Flags{}},
		{"empty abi", `[]`, class.Flags{}},
	}
	for _, tt := range tests {
		c, err := class.Parse(sierra(t, tt.abi))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if c.Flags != tt.want {
			t.Errorf("%s: flags %+v, want %+v", tt.name, c.Flags, tt.want)
		}
	}
}

func TestLegacyClass(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(`{"data":["0x1"]}`))
	w.Close()
	program := base64.StdEncoding.EncodeToString(gz.Bytes())
	raw := `{"program":"` + program + `","entry_points_by_type":{"EXTERNAL":[{"selector":"0x0","offset":"0x1a"}],"L1_HANDLER":[],"CONSTRUCTOR":[{"selector":"0x28ffe4ff0f226a9107253e17a904099aa4f63a02a5621de0576e5aa71bc5194","offset":"0x2"}]},
	  "abi":[{"type":"constructor","name":"constructor","inputs":[{"name":"implementation_hash","type":"felt"}],"outputs":[]},
	         {"type":"function","name":"__default__","inputs":[{"name":"selector","type":"felt"},{"name":"calldata_size","type":"felt"},{"name":"calldata","type":"felt*"}],"outputs":[]},
	         {"type":"struct","name":"Uint256","size":2,"members":[{"name":"low","type":"felt","offset":0},{"name":"high","type":"felt","offset":1}]},
	         {"type":"event","name":"Upgraded","keys":[],"data":[{"name":"implementation","type":"felt"}]}]}`
	c, err := class.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != class.KindLegacy || c.CairoVersion != 0 || !c.Flags.IsProxy || c.Flags.IsAccount {
		t.Errorf("legacy proxy: kind %s cairo %d flags %+v", c.Kind, c.CairoVersion, c.Flags)
	}
	if _, ok := c.ABI.FunctionBySelector(starknet.Felt{}); !ok {
		t.Error("__default__ not found by selector 0")
	}
	p, err := c.LegacyProgram()
	if err != nil || string(p) != `{"data":["0x1"]}` {
		t.Errorf("LegacyProgram = %s, %v", p, err)
	}
	if len(c.ABI.Structs["Uint256"].Members) != 2 {
		t.Error("Uint256 struct not parsed")
	}
}

func TestBadClasses(t *testing.T) {
	for _, raw := range []string{
		``, `null`, `[]`, `{"abi":[]}`,
		`{"program":"x","entry_points_by_type":{}}` + "garbage",
		`{"sierra_program":["0x1"],"entry_points_by_type":{},"abi":"not json"}`,
		`{"sierra_program":["0x1"],"entry_points_by_type":{},"abi":[1]}`,
		`{"sierra_program":["0x1"],"entry_points_by_type":{"EXTERNAL":[{"selector":"0xzz"}]},"abi":"[]"}`,
		`{"entry_points_by_type":{}}`,
	} {
		if _, err := class.Parse([]byte(raw)); err == nil {
			t.Errorf("Parse(%s) accepted", raw)
		}
	}
	c, err := class.Parse([]byte(`{"program":"!!!","entry_points_by_type":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.LegacyProgram(); err == nil {
		t.Error("bad base64 accepted")
	}
}
