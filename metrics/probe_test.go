package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A probe has no sample until its source is set and while its source fails, so an alert
// on it sees nothing rather than a made-up 0.
func TestProbeSamplesOnlyWhatItRead(t *testing.T) {
	p := newProbe("test_probe_seconds", "a test probe")
	defer Registry.Unregister(p)
	if n := testutil.CollectAndCount(p); n != 0 {
		t.Fatalf("unset probe: %d samples, want 0", n)
	}
	p.set(func(context.Context) (float64, error) { return 0, errors.New("database down") })
	if n := testutil.CollectAndCount(p); n != 0 {
		t.Fatalf("failing probe: %d samples, want 0", n)
	}
	p.set(func(ctx context.Context) (float64, error) {
		if _, ok := ctx.Deadline(); !ok {
			return 0, errors.New("no deadline")
		}
		return 12.5, nil
	})
	want := "# HELP test_probe_seconds a test probe\n# TYPE test_probe_seconds gauge\ntest_probe_seconds 12.5\n"
	if err := testutil.CollectAndCompare(p, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}
