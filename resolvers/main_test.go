package resolvers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer/indexertest"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/sim"
)

func TestMain(m *testing.M) {
	// Statement counts must not depend on scheduling on a loaded machine: give loaders
	// a batch window long enough for every sibling resolver to ask.
	loaders.BatchWait = 50 * time.Millisecond
	dbtest.Main(m)
}

// gqlServer serves the public handler (GraphQL with its limits, no API keys) over a fresh
// test database.
type gqlServer struct {
	t     testing.TB
	db    *sqlx.DB
	store *db.Store
	url   string
}

func newGQLServer(t testing.TB) *gqlServer {
	t.Helper()
	conn := dbtest.New(t)
	store := db.NewStore(conn)
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits, Introspection: true}))
	t.Cleanup(srv.Close)
	return &gqlServer{t: t, db: conn, store: store, url: srv.URL + "/graphql"}
}

// indexedSim serves the public handler over a simulated chain of blocks blocks (seeded by
// seed), indexed through the real indexer.
func indexedSim(t *testing.T, seed uint64, blocks, txPerBlock int) *gqlServer {
	t.Helper()
	s := newGQLServer(t)
	node := httptest.NewServer(sim.New(sim.Config{Seed: seed, Blocks: uint64(blocks), TxPerBlock: txPerBlock}).Handler())
	t.Cleanup(node.Close)
	indexertest.Run(t, s.db, node.URL, 0, int64(blocks-1))
	return s
}

// gqlResponse is a GraphQL answer with its data left raw for the test to decode.
type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// query posts a document and returns the answer and the HTTP status.
func (s *gqlServer) query(doc string, vars map[string]any) (gqlResponse, int) {
	s.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": doc, "variables": vars})
	resp, err := http.Post(s.url, "application/json", bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		s.t.Fatalf("decode GraphQL answer (status %d): %v", resp.StatusCode, err)
	}
	return out, resp.StatusCode
}

// mustQuery posts a document that must succeed and decodes its data into out.
func (s *gqlServer) mustQuery(doc string, vars map[string]any, out any) {
	s.t.Helper()
	resp, status := s.query(doc, vars)
	if status != http.StatusOK || len(resp.Errors) > 0 {
		s.t.Fatalf("status %d, errors %+v", status, resp.Errors)
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		s.t.Fatalf("decode data: %v\n%s", err, resp.Data)
	}
}

// exec runs SQL that writes test rows.
func (s *gqlServer) exec(query string, args ...any) {
	s.t.Helper()
	dbtest.Exec(s.t, s.db, query, args...)
}

// connection is the answer of a GraphQL connection: its total, page info and nodes.
type connection[N any] struct {
	TotalCount int
	PageInfo   struct {
		HasNextPage bool
		EndCursor   string
	}
	Edges []struct{ Node N }
}
