package api_test

import (
	"net/http/httptest"
	"testing"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/internal/buildinfo"
)

// indexerStatus names the release serving the API, as `starkgraph version` does.
func TestIndexerStatusNamesTheVersion(t *testing.T) {
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: db.NewStore(dbtest.New(t)), Limits: api.DefaultGraphQLLimits}))
	defer srv.Close()
	a, _, _ := post(t, srv, map[string]any{"query": `{ indexerStatus { version revision } }`})
	status, _ := a.Data["indexerStatus"].(map[string]any)
	if len(a.Errors) > 0 || status["version"] != buildinfo.Version() || buildinfo.Version() == "" {
		t.Errorf("indexerStatus: %v %v; want version %q", a.Data, a.Errors, buildinfo.Version())
	}
}
