// `starkgraph webhooks`: every key's webhooks for operators (docs/webhooks.md).

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/webhooks"
)

const webhooksUsage = `usage: starkgraph webhooks COMMAND (against DATABASE_URL)

  list [--key ID] [--json]           every key's webhooks: status and why, position, backlog, failures
  pause ID                           stop delivering to webhook ID (its owner sees "paused by an operator")
  resume ID                          deliver again to a paused or disabled webhook, from where it stopped
  replay ID --from-block N [--to-block M]
                                     deliver again everything from block N on, with the same message ids;
                                     with --to-block, blocks N to M only, then continue where it stood
  replay ID --message MESSAGE_ID     deliver again that message alone (its webhook-id), then continue
  delete ID                          delete webhook ID and its delivery log

The delivery loops of serve and dev see a change within a second`

// runWebhooks is `starkgraph webhooks ...`.
func runWebhooks(ctx context.Context, _ *slog.Logger, args []string) error {
	return webhooksCommand(ctx, args, os.Stdout)
}

func webhooksCommand(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(webhooksUsage)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "help", "-h", "--help":
		fmt.Fprintln(out, webhooksUsage)
		return nil
	case "list", "pause", "resume", "replay", "delete":
	default:
		return fmt.Errorf("unknown webhooks command %q\n%s", cmd, webhooksUsage)
	}
	fs := flag.NewFlagSet("webhooks "+cmd, flag.ContinueOnError)
	fs.SetOutput(out)
	var keyID, from, to int64
	var message string
	var asJSON bool
	switch cmd {
	case "list":
		fs.Int64Var(&keyID, "key", 0, "only this API key's webhooks (its id, as `starkgraph keys list` shows)")
		fs.BoolVar(&asJSON, "json", false, "one JSON object a line instead of a table")
	case "replay":
		fs.Int64Var(&from, "from-block", -1, "the first block delivered again")
		fs.Int64Var(&to, "to-block", -1, "the last block delivered again (default: everything after --from-block)")
		fs.StringVar(&message, "message", "", "the webhook-id of the one message delivered again")
	}
	// The id may come before the flags (replay 12 --from-block 100) or after them.
	var id int64 = -1
	if cmd != "list" && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		n, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("webhooks %s: %q is not a webhook id\n%s", cmd, rest[0], webhooksUsage)
		}
		id, rest = n, rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if cmd != "list" && id < 0 && fs.NArg() == 1 {
		n, err := strconv.ParseInt(fs.Arg(0), 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("webhooks %s: %q is not a webhook id\n%s", cmd, fs.Arg(0), webhooksUsage)
		}
		id = n
	} else if fs.NArg() != 0 {
		return fmt.Errorf("webhooks %s: unexpected %q\n%s", cmd, fs.Args(), webhooksUsage)
	}
	if cmd != "list" && id < 0 {
		return fmt.Errorf("webhooks %s: the webhook's id is required\n%s", cmd, webhooksUsage)
	}
	if cmd == "replay" {
		switch {
		case message != "" && (from >= 0 || to >= 0):
			return fmt.Errorf("webhooks replay: --message or --from-block, not both\n%s", webhooksUsage)
		case message == "" && from < 0:
			return fmt.Errorf("webhooks replay: --from-block N or --message ID is required\n%s", webhooksUsage)
		case to >= 0 && to < from:
			return fmt.Errorf("webhooks replay: --to-block %d is before --from-block %d", to, from)
		}
	}
	conn, err := openDatabaseURL(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer conn.Close()
	store := db.NewStore(conn)
	if cmd == "list" {
		hooks, err := store.AllWebhooks(ctx, keyID)
		if err != nil {
			return err
		}
		return listWebhooks(out, hooks, asJSON, time.Now())
	}
	var w *db.Webhook
	switch cmd {
	case "pause":
		w, err = store.PauseWebhook(ctx, db.AnyKey, id)
	case "resume":
		w, err = store.ResumeWebhook(ctx, db.AnyKey, id)
	case "replay":
		switch {
		case message != "":
			w, err = webhooks.ReplayMessage(ctx, store, db.AnyKey, id, message)
		case to >= 0:
			w, err = webhooks.ReplayRange(ctx, store, db.AnyKey, id, from, to)
		default:
			w, err = store.ReplayWebhook(ctx, db.AnyKey, id, from)
		}
		if in := (*webhooks.InputError)(nil); errors.As(err, &in) {
			return fmt.Errorf("webhooks replay: %s", strings.Replace(in.Error(), in.Arg, cliFlag[in.Arg], 1))
		}
	case "delete":
		var ok bool
		if ok, err = store.DeleteWebhook(ctx, db.AnyKey, id); err == nil && ok {
			fmt.Fprintf(out, "Deleted webhook %d and its delivery log.\n", id)
			return nil
		}
	}
	if err != nil {
		return err
	}
	if w == nil {
		return fmt.Errorf("webhooks %s: there is no webhook %d", cmd, id)
	}
	switch cmd {
	case "pause":
		fmt.Fprintf(out, "Paused webhook %d (key %d, %s).\n", w.ID, w.KeyID, w.URL)
	case "resume":
		fmt.Fprintf(out, "Resumed webhook %d (key %d, %s) after block %d.\n", w.ID, w.KeyID, w.URL, w.PositionBlock)
	case "replay":
		switch r := w.Replay; {
		case r != nil && r.Message != "":
			fmt.Fprintf(out, "Webhook %d (key %d) delivers message %s again, then continues after block %d; status %s.\n",
				w.ID, w.KeyID, r.Message, r.Resume.Block, w.Status)
		case r != nil:
			fmt.Fprintf(out, "Webhook %d (key %d) delivers blocks %d to %d again, with the message ids they had, then continues after block %d; status %s.\n",
				w.ID, w.KeyID, r.From, r.End.Block, r.Resume.Block, w.Status)
		default:
			fmt.Fprintf(out, "Webhook %d (key %d) delivers again from block %d, with the message ids it had; status %s.\n",
				w.ID, w.KeyID, from, w.Status)
		}
	}
	return nil
}

// cliFlag names the flag of a replay's argument.
var cliFlag = map[string]string{"fromBlock": "--from-block", "toBlock": "--to-block", "messageId": "--message"}

// listedJSON is a line of `webhooks list --json`.
type listedJSON struct {
	ID            int64             `json:"id"`
	Key           int64             `json:"key"`
	KeyPrefix     string            `json:"keyPrefix"`
	KeyLabel      string            `json:"keyLabel"`
	URL           string            `json:"url"`
	Kind          string            `json:"kind"`
	Filter        db.WebhookFilter  `json:"filter"`
	Status        string            `json:"status"`
	StatusReason  string            `json:"statusReason"`
	PositionBlock int64             `json:"positionBlock"`
	BehindBlocks  int64             `json:"behindBlocks"`
	BacklogAge    *float64          `json:"backlogAgeSeconds"`
	Attempts      int               `json:"attempts"`
	NextAttemptAt *time.Time        `json:"nextAttemptAt"`
	LastError     string            `json:"lastError"`
	DeliveredAt   *time.Time        `json:"deliveredAt"`
	Replay        *db.WebhookReplay `json:"replay,omitempty"`
}

func listWebhooks(out io.Writer, hooks []*db.ListedWebhook, asJSON bool, now time.Time) error {
	age := func(w *db.ListedWebhook) *float64 {
		if w.BehindBlocks == 0 || w.PendingSince == nil {
			return nil
		}
		a := max(0, now.Sub(time.Unix(*w.PendingSince, 0)).Seconds())
		return &a
	}
	if asJSON {
		enc := json.NewEncoder(out)
		for _, w := range hooks {
			if err := enc.Encode(listedJSON{ID: w.ID, Key: w.KeyID, KeyPrefix: w.KeyPrefix, KeyLabel: w.KeyLabel, URL: w.URL,
				Kind: w.Kind, Filter: w.Filter, Status: w.Status, StatusReason: w.StatusReason, PositionBlock: w.PositionBlock,
				BehindBlocks: w.BehindBlocks, BacklogAge: age(w), Attempts: w.Attempts, NextAttemptAt: w.NextAttemptAt,
				LastError: w.LastError, DeliveredAt: w.DeliveredAt, Replay: w.Replay}); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKEY\tKIND\tSTATUS\tPOSITION\tBACKLOG\tFAILURES\tURL\tREASON / LAST ERROR")
	for _, w := range hooks {
		backlog := "none"
		if w.BehindBlocks > 0 {
			backlog = fmt.Sprintf("%d blocks", w.BehindBlocks)
			if a := age(w); a != nil {
				backlog += ", " + (time.Duration(*a) * time.Second).String()
			}
		}
		failures := "0"
		if w.Attempts > 0 {
			failures = strconv.Itoa(w.Attempts)
			if w.NextAttemptAt != nil {
				failures += ", next " + w.NextAttemptAt.UTC().Format(time.RFC3339)
			}
		}
		why := w.StatusReason
		if r := w.Replay; r != nil {
			why = strings.TrimPrefix(why+fmt.Sprintf("; replaying blocks %d to %d, then after block %d", r.From, r.End.Block, r.Resume.Block), "; ")
		}
		if w.LastError != "" {
			why = strings.TrimPrefix(why+"; last error: "+w.LastError, "; ")
		}
		key := fmt.Sprintf("%d (%s)", w.KeyID, w.KeyPrefix)
		if w.KeyLabel != "" {
			key = fmt.Sprintf("%d (%s, %s)", w.KeyID, w.KeyPrefix, w.KeyLabel)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", w.ID, key, w.Kind, w.Status, w.PositionBlock, backlog,
			failures, w.URL, oneLine(why, 120))
	}
	return tw.Flush()
}

// oneLine is s on one line, cut at n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
