package verify_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/internal/fixtures"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer/indexertest"
	"github.com/starkgraph/starkgraph/replay"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
	"github.com/starkgraph/starkgraph/verify"
)

// The account deployed in sepolia-56377, of the fixture class.
const fixtureAccount = "0x3916db3f760d6d1b947804d4595f1ba94e72ff6eaa4a90588ad939cc79f8982"

// The whole path on a replayed chain: sources submitted over REST for a contract address
// are compiled by the stand-in toolchain, the job goes 0 -> 5 -> 1 -> 4, and the class is
// then verified everywhere: class details, sources, the verified list, the check by class
// and by contract, GraphQL verifiedClasses, Class.verified and Contract.class.
func TestVerificationOnReplayedChain(t *testing.T) {
	set, err := replay.Load(fixtures.Set(t, "sepolia-56377"))
	if err != nil {
		t.Fatal(err)
	}
	node := httptest.NewServer(set)
	defer node.Close()
	conn := dbtest.New(t)
	indexertest.Run(t, conn, node.URL, 56377, 56379)

	store := db.NewStore(conn)
	srv := httptest.NewServer(api.NewHandler(api.Config{
		Store: store, Limits: api.DefaultGraphQLLimits,
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{}),
	}))
	defer srv.Close()
	scarbDir, workDir := verify.InstallStandin(t), t.TempDir()
	verify.StartWorkers(t, conn, scarbDir, workDir, 2, 5*time.Second)

	class := db.MustFelt(verify.FixtureClass).Padded()
	if code, body := get(t, srv.URL+"/beta/classes/"+class+"/source"); code != 404 || !strings.Contains(body, "not verified") {
		t.Errorf("sources of an unverified class: %d %s", code, body)
	}
	form := map[string]any{
		"compiler_version": verify.StandinVersion, "scarb_version": verify.StandinVersion, "name": "ArgentAccount",
		"package_name": "argent", "license": "MIT", "build_tool": "scarb", "project_dir_path": ".",
		"files": verify.Sources(""),
	}
	raw, _ := json.Marshal(form)
	code, body := post(t, srv.URL+"/beta/class-verify/"+fixtureAccount, raw)
	var created struct {
		JobID string `json:"job_id"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &created) != nil || created.JobID == "" {
		t.Fatalf("submit: %d %s", code, body)
	}
	final := verify.WaitFinal(t, conn, created.JobID, 30*time.Second)
	if final.Status != db.JobSuccess {
		t.Fatalf("job ended %d: %v", final.Status, final.Message)
	}
	if h := verify.History(t, conn, created.JobID); h != "0>5>1>4" {
		t.Errorf("history %s, want 0>5>1>4", h)
	}
	var job map[string]any
	getJSON(t, srv.URL+"/beta/class-verify/job/"+created.JobID, &job)
	if job["status"] != 4.0 || job["status_description"] != "Success" || job["class_hash"] != class ||
		job["obtained_class_hash"] != class || job["finished_timestamp"] == nil {
		t.Errorf("job document %v", job)
	}

	var details struct {
		IsVerified   bool   `json:"isVerified"`
		VerifiedName string `json:"verifiedName"`
		Verified     *struct {
			Name, License, PackageName, ScarbVersion string
			Files                                    []string
		} `json:"verified"`
	}
	getJSON(t, srv.URL+"/beta/classes/"+class, &details)
	if !details.IsVerified || details.VerifiedName != "ArgentAccount" || details.Verified == nil ||
		details.Verified.License != "MIT" || details.Verified.PackageName != "argent" ||
		details.Verified.ScarbVersion != verify.StandinVersion || strings.Join(details.Verified.Files, ",") != "Scarb.toml,src/lib.cairo" {
		t.Errorf("class details: %+v %+v", details, details.Verified)
	}
	var source struct {
		Sources map[string]string `json:"sources"`
		Abi     []any             `json:"abi"`
	}
	getJSON(t, srv.URL+"/beta/classes/"+class+"/source", &source)
	if source.Sources["src/lib.cairo"] != verify.Sources("")["src/lib.cairo"] || len(source.Abi) == 0 {
		t.Errorf("source: %d files, %d ABI entries", len(source.Sources), len(source.Abi))
	}
	var list struct {
		Items []struct{ ClassHash, VerifiedName string }
	}
	getJSON(t, srv.URL+"/beta/classes/verified", &list)
	if len(list.Items) != 1 || list.Items[0].ClassHash != class || list.Items[0].VerifiedName != "ArgentAccount" {
		t.Errorf("verified list: %+v", list.Items)
	}
	for _, h := range []string{class, fixtureAccount} {
		var check struct {
			ClassHash    string  `json:"class_hash"`
			IsVerified   bool    `json:"is_verified"`
			VerifiedName *string `json:"verified_name"`
		}
		getJSON(t, srv.URL+"/beta/class-verify/check/"+h, &check)
		if !check.IsVerified || check.ClassHash != class || check.VerifiedName == nil || *check.VerifiedName != "ArgentAccount" {
			t.Errorf("check %s: %+v", h, check)
		}
	}

	doc := `query($a: Address!, $c: Address!) {
	  verifiedClasses { totalCount edges { node { classHash verifiedName license } } }
	  class(hash: $c) { verified { verifiedName packageName scarbVersion sources { path content } abi } }
	  contract(address: $a) { class { hash verified { verifiedName license } } }
	}`
	q, _ := json.Marshal(map[string]any{"query": doc, "variables": map[string]any{"a": fixtureAccount, "c": class}})
	code, body = post(t, srv.URL+"/graphql", q)
	var gql struct {
		Data struct {
			VerifiedClasses struct {
				TotalCount int
				Edges      []struct {
					Node struct{ ClassHash, VerifiedName, License string }
				}
			}
			Class struct {
				Verified struct {
					VerifiedName, PackageName, ScarbVersion string
					Sources                                 []struct{ Path, Content string }
					Abi                                     []map[string]any
				}
			}
			Contract struct {
				Class struct {
					Hash     string
					Verified *struct{ VerifiedName, License string }
				}
			}
		}
		Errors []any
	}
	if code != 200 || json.Unmarshal([]byte(body), &gql) != nil || len(gql.Errors) > 0 {
		t.Fatalf("GraphQL: %d %s", code, body)
	}
	d := gql.Data
	if d.VerifiedClasses.TotalCount != 1 || len(d.VerifiedClasses.Edges) != 1 || d.VerifiedClasses.Edges[0].Node.License != "MIT" {
		t.Errorf("verifiedClasses: %+v", d.VerifiedClasses)
	}
	if len(d.Class.Verified.Sources) != 2 || d.Class.Verified.Sources[1].Path != "src/lib.cairo" || d.Class.Verified.PackageName != "argent" ||
		len(d.Class.Verified.Abi) == 0 || d.Class.Verified.Abi[0]["type"] == nil {
		t.Errorf("Class.verified: %+v", d.Class.Verified)
	}
	if d.Contract.Class.Hash != class || d.Contract.Class.Verified == nil || d.Contract.Class.Verified.VerifiedName != "ArgentAccount" {
		t.Errorf("Contract.class.verified: %+v", d.Contract.Class)
	}

	// Verified already: the union's other member, and nothing is compiled.
	code, body = post(t, srv.URL+"/beta/class-verify/"+class, raw)
	if code != 200 || strings.TrimSpace(body) != `{"verification_status":"Ok"}` {
		t.Errorf("second submission: %d %s", code, body)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	code, body := get(t, url)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", url, code, body)
	}
	if err := json.Unmarshal([]byte(body), out); err != nil {
		t.Fatalf("GET %s: %v\n%s", url, err, body)
	}
}

func post(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
