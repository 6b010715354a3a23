package rest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// Every integer parameter of every route, sent every edge of its domain and of the types
// a value passes through (NumberEdges): never a 5xx; a negative one a 400 naming it; one
// above its domain read as the domain's largest (a bound above the head), so a 200.
func TestEveryIntParamTakesItsDomainsEdges(t *testing.T) {
	e := newEnv(t)
	n := 0
	for _, op := range Operations() {
		for _, p := range op.Params {
			if p.Kind != "int" {
				continue
			}
			for _, v := range NumberEdges(p.Min, p.Max) {
				n++
				if msg := checkHostile(e, op, p, v); msg != "" {
					t.Error(msg)
					continue
				}
				if strings.HasPrefix(v, "0x") {
					continue // not a decimal integer: a 400 or a 200, checkHostile said not a 5xx
				}
				path, query := op.Target(map[string]string{p.Name: v})
				r := e.get(path + "?" + query)
				switch {
				case strings.HasPrefix(v, "-"):
					if r.status != 400 || !strings.Contains(string(r.raw), `"`+p.Name+`: `) {
						t.Errorf("%s %s=%s: %d %s; want a 400 naming %s", op.OpID, p.Name, v, r.status, r.raw, p.Name)
					}
				case r.status == 400 && (strings.Contains(string(r.raw), "negative") || strings.Contains(string(r.raw), "not an integer")):
					// A 400 for another reason is right (from_block without sender_address,
					// a lower bound above an upper one), but never for the value's domain.
					t.Errorf("%s %s=%s: %d %s; want it read as a bound above the head", op.OpID, p.Name, v, r.status, r.raw)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d requests: the integer parameters lost their domains", n)
	}
	t.Logf("%d requests", n)
}

// The requests of issue 53, which answered 500 when block numbers became 4-byte: a lower
// bound above any block is an empty page, an upper one the whole list.
func TestBlockBoundsAboveTheColumns(t *testing.T) {
	e := newEnv(t)
	items := func(path string) []any {
		t.Helper()
		r := e.get(path)
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.raw)
		}
		return list(t, obj(t, r.body)["items"])
	}
	all := items("/beta/token-transfers")
	if len(all) == 0 {
		t.Fatal("the seed has no transfers: the test would show nothing")
	}
	for _, huge := range []string{"2147483648", "4294967296", "18446744073709551616"} {
		if got := items("/beta/token-transfers?from_block=" + huge); len(got) != 0 {
			t.Errorf("from_block=%s: %d transfers, want none", huge, len(got))
		}
		if got := items("/beta/token-transfers?to_block=" + huge); !sameJSON(got, all) {
			t.Errorf("to_block=%s: %d transfers, want the whole list's %d", huge, len(got), len(all))
		}
	}
	txs := items("/beta/tx-activity?p=1&ps=10")
	var sender string
	for _, tx := range txs {
		if s, ok := obj(t, tx)["sender_address"].(string); ok {
			sender = s
			break
		}
	}
	if sender == "" {
		t.Fatal("no transaction with a sender in the seed's first page")
	}
	q := url.Values{"p": {"1"}, "ps": {"10"}, "sender_address": {sender}}
	if len(items("/beta/tx-activity?"+q.Encode())) == 0 {
		t.Fatalf("the sender %s has no transactions", sender)
	}
	q.Set("from_block", "2147483648")
	if got := items("/beta/tx-activity?" + q.Encode()); len(got) != 0 {
		t.Errorf("tx-activity from_block=2147483648: %d transactions, want none", len(got))
	}
	e.expectRefusals(t, []refusal{
		{"/beta/token-transfers?from_block=-1", 400, "from_block: "},
		{"/beta/token-transfers?to_block=-9223372036854775809", 400, "to_block: "},
		{"/beta/tx-activity?from_block=-2147483649&sender_address=" + sender, 400, "from_block: "},
	})
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return fmt.Sprint(string(x)) == string(y)
}
