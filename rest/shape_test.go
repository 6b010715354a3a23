package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sampleRequests is one request per GET operation that succeeds on the seeded chain.
var sampleRequests = map[string]string{
	"listTokens":                   "/beta/tokens",
	"getTokenHoldersOverview":      "/beta/tokens/" + ethAddr.Hex() + "/holders/overview",
	"getNftItems":                  "/beta/nft-items?contract_address=" + nftAddr.Hex(),
	"getNftEvents":                 "/beta/nft-events?contract_address=" + nftAddr.Hex(),
	"getNftContractBalance":        "/beta/nft-contract-balance?owner_address=" + account(1).Hex(),
	"getNftHolders":                "/beta/nft-holders?contract_address=" + nftAddr.Hex(),
	"getTransactionActivities":     "/beta/tx-activity?sender_address=" + account(1).Hex(),
	"getWalletStakingInfo":         "/beta/staking/wallet-info?address=" + account(0).Hex(),
	"listMetaTransactions":         "/beta/meta-txns?to=" + account(0).Hex(),
	"getContractByAddress":         "/beta/contracts/" + account(0).Hex(),
	"listContracts":                "/beta/contracts",
	"getContractTokensHeld":        "/beta/contracts/" + account(0).Hex() + "/erc20-tokens-held",
	"listBlocks":                   "/beta/blocks",
	"listClasses":                  "/beta/classes",
	"getStakingOverview":           "/beta/staking/overview",
	"listValidators":               "/beta/staking/validators",
	"getNetworkStats":              "/beta/stats",
	"getWalletStakeOverTime":       "/beta/staking/wallet-info/stake-over-time?address=" + account(0).Hex(),
	"listVerifiedClasses":          "/beta/classes/verified",
	"getBlockByHash":               "/beta/blocks/5",
	"listTransactions":             "/beta/txns",
	"getTransactionByHash":         "/beta/txns/" + txHash(3, 0).Hex(), // with the mint of NFT 3
	"listEvents":                   "/beta/events",
	"getTokenHolders":              "/beta/tokens/" + ethAddr.Hex() + "/holders",
	"getClassByHash":               "/beta/classes/" + accountClass.Hex(),
	"listClassContracts":           "/beta/classes/" + accountClass.Hex() + "/contracts",
	"getClassSourceCode":           "/beta/classes/" + accountClass.Hex() + "/source",
	"getVerificationJobStatus":     "/beta/class-verify/job/" + jobID,
	"checkVerificationStatus":      "/beta/class-verify/check/" + account(0).Hex(),
	"getApiStatus":                 "/beta/api-status",
	"getTokenTransfers":            "/beta/token-transfers?page_size=10",
	"getContractTokenBalances":     "/beta/contracts/" + account(0).Hex() + "/token-balances",
	"getEventActivities":           "/beta/event-activity?from_address=" + account(1).Hex() + "&page_size=10",
	"getContractBalanceHistory":    "/beta/contracts/" + account(0).Hex() + "/erc20-balance-history",
	"getValidatorDetails":          "/beta/staking/validator-details?validator=" + account(4).Hex(),
	"getValidatorPoolInfo":         "/beta/staking/validator-pool-info?validator=" + account(4).Hex(),
	"listDelegators":               "/beta/staking/delegators?validator=" + account(4).Hex(),
	"getNftContract":               "/beta/nft-contract/" + nftAddr.Hex(),
	"getNftDetails":                "/beta/nft/" + nftAddr.Hex() + "/7",
	"getNftBalances":               "/beta/nft-balances?contract_address=" + nftAddr.Hex(),
	"getNftTransfers":              "/beta/nft-transfers?contract_address=" + nftAddr.Hex(),
	"getDailyStats":                "/beta/daily-stats",
	"getTodayStats":                "/beta/daily-stats/today",
	"search":                       "/beta/search?q=eth",
	"listMessages":                 "/beta/messages",
	"getMessageByHash":             "/beta/message/" + messageHash.Hex(),
	"getMessageBridgeTransactions": "/beta/message/" + messageHash.Hex() + "/bridgeTransactions",
	"getContractTransfers":         "/beta/contracts/" + account(1).Hex() + "/transfers?ps=10",
	"getDelegatorsOverTime":        "/beta/staking/delegators-over-time?timerange=max",
	"getStakeOverTime":             "/beta/staking/stake-over-time?address=" + account(4).Hex(),
	"getWalletStakingActivity":     "/beta/staking/wallet-info/activity?address=" + account(0).Hex(),
	"getValidatorActivity":         "/beta/staking/validator-details/activity?address=" + account(4).Hex(),
	"getAttestations":              "/beta/staking/attestations",
	"getNftStats":                  "/beta/nft-stats",
	"getMarketplaceStats":          "/beta/marketplace-stats?timeframe=week",
}

// referenceExamples reads the 200 examples of ../shared/spec/voyager-beta.md, by
// operationId. The spec is outside the repository: without it the test skips (and fails
// in CI).
func referenceExamples(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "voyager-beta.md"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference spec missing: %v", err)
		}
		t.Skipf("reference spec missing (../shared/spec/voyager-beta.md): %v", err)
	}
	section := regexp.MustCompile("(?m)^## \\d+\\. [A-Z]+ \\S+ — `(\\w+)`")
	example := regexp.MustCompile("(?s)200 example \\(verbatim\\):\\n```json\\n(.*?)\\n```")
	out := map[string]any{}
	text := string(raw)
	idx := section.FindAllStringSubmatchIndex(text, -1)
	for i, m := range idx {
		end := len(text)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		op := text[m[2]:m[3]]
		if ex := example.FindStringSubmatch(text[m[0]:end]); ex != nil {
			var v any
			if err := json.Unmarshal([]byte(ex[1]), &v); err != nil {
				t.Fatalf("example of %s: %v", op, err)
			}
			out[op] = v
		}
	}
	if len(out) < 11 {
		t.Fatalf("found %d examples in the reference, want the 11 it has", len(out))
	}
	return out
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

// optionalKeys are keys the reference marks optional (and not nullable) that its examples
// leave out: they are present only when known.
var optionalKeys = map[string]bool{"logo": true}

// sameShape reports where got differs from the reference value ref: the same keys in every
// object, the same JSON type for every value the reference does not leave null, arrays
// compared by their first elements.
func sameShape(path string, ref, got any) []string {
	if ref == nil {
		return nil // the reference shows null: the schema says what else is allowed
	}
	if jsonType(ref) != jsonType(got) {
		return []string{fmt.Sprintf("%s: %s, reference has %s", path, jsonType(got), jsonType(ref))}
	}
	var diffs []string
	switch r := ref.(type) {
	case map[string]any:
		g := got.(map[string]any)
		for k, rv := range r {
			gv, ok := g[k]
			if !ok {
				diffs = append(diffs, path+"."+k+": missing")
				continue
			}
			diffs = append(diffs, sameShape(path+"."+k, rv, gv)...)
		}
		for k := range g {
			if _, ok := r[k]; !ok && !optionalKeys[k] {
				diffs = append(diffs, path+"."+k+": not in the reference")
			}
		}
	case []any:
		g := got.([]any)
		if len(r) > 0 && len(g) > 0 {
			diffs = append(diffs, sameShape(path+"[0]", r[0], g[0])...)
		} else if len(r) > 0 {
			diffs = append(diffs, path+": empty, cannot compare with the reference")
		}
	}
	return diffs
}

// docSchemas compiles the response schemas of the served OpenAPI document.
type docSchemas struct {
	compiler *jsonschema.Compiler
	mu       sync.Mutex
}

func newDocSchemas(t testing.TB, doc []byte) *docSchemas {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://starkgraph.test/openapi.json", v); err != nil {
		t.Fatal(err)
	}
	return &docSchemas{compiler: c}
}

// validate checks body (raw JSON) against the 200 schema of method path in the document.
func (d *docSchemas) validate(method, path string, status int, body []byte) error {
	ptr := "/paths/" + pointerEscape(strings.TrimPrefix(path, "/beta")) + "/" + strings.ToLower(method) +
		"/responses/" + fmt.Sprint(status) + "/content/application~1json/schema"
	d.mu.Lock()
	sch, err := d.compiler.Compile("https://starkgraph.test/openapi.json#" + escapeFragment(ptr))
	d.mu.Unlock()
	if err != nil {
		return fmt.Errorf("compile %s: %w", ptr, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func escapeFragment(s string) string {
	return strings.NewReplacer("{", "%7B", "}", "%7D").Replace(s)
}

// checkResponsesMatchReferenceAndDocument sends one request per GET operation and checks
// the answer against the served OpenAPI document (every key, JSON type, nullability, no
// extra key) and, where voyager-beta.md has an example body, against its shape.
func checkResponsesMatchReferenceAndDocument(t *testing.T, shared *env) {
	refs := referenceExamples(t)
	e := shared.with(t)
	docResp := e.get("/beta/openapi.json")
	if docResp.status != http.StatusOK {
		t.Fatalf("openapi.json: %d", docResp.status)
	}
	schemas := newDocSchemas(t, docResp.raw)
	for _, rt := range routeTable() {
		if rt.method != http.MethodGet {
			continue
		}
		t.Run(rt.opID, func(t *testing.T) {
			e := e.with(t)
			path, ok := sampleRequests[rt.opID]
			if !ok {
				t.Fatalf("no sample request for %s", rt.opID)
			}
			r := e.get(path)
			if r.status != http.StatusOK {
				t.Fatalf("GET %s: status %d: %s", path, r.status, r.raw)
			}
			if err := schemas.validate(rt.method, rt.path, 200, r.raw); err != nil {
				t.Errorf("GET %s does not match the OpenAPI document: %v\n%s", path, err, r.raw)
			}
			if ref, ok := refs[rt.opID]; ok {
				if diffs := sameShape("$", ref, r.body); len(diffs) > 0 {
					sort.Strings(diffs)
					t.Errorf("GET %s differs from the reference example:\n  %s\n%s", path, strings.Join(diffs, "\n  "), r.raw)
				}
			}
		})
	}
	for op := range refs {
		if _, ok := sampleRequests[op]; !ok {
			t.Errorf("the reference has an example for %s, which no sample request covers", op)
		}
	}
}

// checkErrorBodiesMatchDocument checks that a 400 and a 404 answer validate against the
// document's error schema.
func checkErrorBodiesMatchDocument(t *testing.T, shared *env) {
	e := shared.with(t)
	schemas := newDocSchemas(t, e.get("/beta/openapi.json").raw)
	r := e.get("/beta/contracts/0xnothex")
	if err := schemas.validate("GET", "/beta/contracts/{contractAddress}", 400, r.raw); err != nil || r.status != 400 {
		t.Fatalf("400: status %d, %v", r.status, err)
	}
	r = e.get("/beta/contracts/0x1234")
	if err := schemas.validate("GET", "/beta/contracts/{contractAddress}", 404, r.raw); err != nil || r.status != 404 {
		t.Fatalf("404: status %d, %v", r.status, err)
	}
}
