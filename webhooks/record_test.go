package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// When the database does not answer (PostgreSQL restarting, a failover), a worker's question
// whether its webhook is still where the round read it gets the error back; the recorder,
// which answers every worker, goes on. Before, it sliced the nil answer and panicked, taking
// the API process down with it.
func TestRecorderSurvivesADatabaseError(t *testing.T) {
	conn := dbtest.New(t)
	d := NewDispatcher(DispatchConfig{Store: db.NewStore(conn), Sender: NewSender(Options{})})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); d.recorder(ctx, stop) }()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second is answered only if the recorder outlived the first
		if err := d.stillAt(ctx, 1, db.Position{Block: 1}); err == nil || ctx.Err() != nil {
			t.Fatalf("stillAt over a closed database: %v (context: %v), want the database's error", err, ctx.Err())
		}
	}
	close(stop)
	<-done
}
