package webhooks

import (
	"context"

	"github.com/starkgraph/starkgraph/db"
)

// The recorder writes what the workers of shared webhooks deliver in batches: a worker
// hands it the move of its webhook's position with the attempt's log row and the item
// sent, and waits until they are committed before its next message (so a webhook's
// position still moves only after a 2xx, and one message is in flight). The recorder
// takes what is waiting, up to maxRecordBatch, and writes it in one transaction
// (db.MoveWebhooks); while it writes, the next batch gathers. A batch that fails is
// written again one move at a time, so that no move fails for another's sake. It also
// answers, in one statement a batch, the workers that ask before their first attempt whether
// their webhook is still active where the round read it (stillAt).

// maxRecordBatch bounds the moves written in one transaction.
const maxRecordBatch = 256

type recordReq struct {
	move  db.WebhookMove
	check bool // not a move: is the webhook still active at move.From?
	done  chan error
}

// record has the recorder write m, and waits until it is committed: db.ErrPositionMoved
// when the webhook's position or status changed meanwhile.
func (d *Dispatcher) record(ctx context.Context, m db.WebhookMove) error {
	return d.ask(ctx, recordReq{move: m, done: make(chan error, 1)})
}

// stillAt asks the recorder whether webhook id is still active at pos (nil), in a batch with
// the other workers' questions: db.ErrPositionMoved when it is not.
func (d *Dispatcher) stillAt(ctx context.Context, id int64, pos db.Position) error {
	return d.ask(ctx, recordReq{move: db.WebhookMove{ID: id, From: pos}, check: true, done: make(chan error, 1)})
}

func (d *Dispatcher) ask(ctx context.Context, r recordReq) error {
	select {
	case d.records <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recorder writes what record is handed until stop is closed (after the workers ended).
func (d *Dispatcher) recorder(ctx context.Context, stop <-chan struct{}) {
	for {
		var batch []recordReq
		select {
		case r := <-d.records:
			batch = append(batch, r)
		case <-stop:
			return
		}
	gather:
		for len(batch) < maxRecordBatch {
			select {
			case r := <-d.records:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		var checks, writes []recordReq
		for _, r := range batch {
			if r.check {
				checks = append(checks, r)
			} else {
				writes = append(writes, r)
			}
		}
		if len(checks) > 0 {
			at := make([]db.WebhookAt, len(checks))
			for i, r := range checks {
				at[i] = db.WebhookAt{ID: r.move.ID, Pos: r.move.From}
			}
			still, err := d.store.WebhooksStillAt(ctx, at)
			for i, r := range checks {
				if err != nil { // still is nil: slicing it would panic
					r.done <- err
				} else {
					r.done <- moveResult(still[i:i+1], nil)
				}
			}
		}
		if len(writes) == 0 {
			continue
		}
		moves := make([]db.WebhookMove, len(writes))
		for i, r := range writes {
			moves[i] = r.move
		}
		moved, err := d.store.MoveWebhooks(ctx, moves)
		if err != nil && len(writes) > 1 {
			for _, r := range writes {
				one, err := d.store.MoveWebhooks(ctx, []db.WebhookMove{r.move})
				r.done <- moveResult(one, err)
			}
			continue
		}
		for i, r := range writes {
			if err != nil {
				r.done <- err
			} else {
				r.done <- moveResult(moved[i:i+1], nil)
			}
		}
	}
}

func moveResult(moved []bool, err error) error {
	switch {
	case err != nil:
		return err
	case !moved[0]:
		return db.ErrPositionMoved
	}
	return nil
}
