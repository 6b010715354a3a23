package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/webhooks"
)

// `starkgraph webhooks`: an operator lists every key's webhooks with their status, reason
// and backlog, pauses, resumes, replays and deletes any of them by id; a bad id or a
// missing --from-block is refused with the usage.
func TestWebhooksCommand(t *testing.T) {
	url := dbtest.NewURL(t)
	t.Setenv("DATABASE_URL", url)
	ctx := context.Background()
	c, err := openDatabaseURL(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status)
		SELECT n, int8send(n + 1), int8send(n), 1700000000 + n, 'ACCEPTED_ON_L2' FROM generate_series(0, 9) n`); err != nil {
		t.Fatal(err)
	}
	keys := auth.NewStore(c)
	_, k1, err := keys.CreateKey(ctx, "dev", "wallet team")
	if err != nil {
		t.Fatal(err)
	}
	_, k2, err := keys.CreateKey(ctx, "free", "")
	if err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(c)
	from := int64(4)
	var hooks []*db.Webhook
	for _, k := range []int64{k1.ID, k2.ID} {
		w := &db.Webhook{KeyID: k, URL: "https://hooks.example.com/" + k1.Prefix, Kind: webhooks.KindBlocks, Secret: "whsec_x"}
		if err := store.CreateWebhook(ctx, w, &from); err != nil {
			t.Fatal(err)
		}
		hooks = append(hooks, w)
	}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := webhooksCommand(ctx, args, &out)
		return out.String(), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("webhooks %v: %v", args, err)
		}
		return out
	}

	list := must("list")
	t.Logf("\n%s", list)
	if lines := strings.Split(strings.TrimSpace(list), "\n"); len(lines) != 3 || !strings.Contains(lines[1], "wallet team") ||
		!strings.Contains(lines[1], "6 blocks") || !strings.Contains(lines[2], "active") {
		t.Errorf("list: want both keys' webhooks, 6 blocks behind (blocks 4 to 9):\n%s", list)
	}
	if out := must("list", "--key", "999"); strings.Count(out, "\n") != 1 {
		t.Errorf("list --key 999: want the header alone:\n%s", out)
	}

	if out := must("pause", "1"); !strings.Contains(out, "Paused webhook 1") {
		t.Errorf("pause: %s", out)
	}
	w, _ := store.Webhook(ctx, hooks[0].ID)
	if w.Status != "paused" || w.StatusReason != "paused by an operator" {
		t.Errorf("after pause: %s %q", w.Status, w.StatusReason)
	}
	must("resume", "1")
	must("replay", "2", "--from-block", "7")
	w, _ = store.Webhook(ctx, hooks[1].ID)
	if w.Status != "active" || w.PositionBlock != 6 || w.PositionTx != db.WholeBlock {
		t.Errorf("after replay from 7: position %d/%d, %s", w.PositionBlock, w.PositionTx, w.Status)
	}

	// A closed range: webhook 1 (at block 3) delivers blocks 2 and 3 again, then goes on.
	if out := must("replay", "1", "--from-block", "2", "--to-block", "3"); !strings.Contains(out, "delivers blocks 2 to 3 again") ||
		!strings.Contains(out, "continues after block 3") {
		t.Errorf("replay --to-block: %s", out)
	}
	w, _ = store.Webhook(ctx, hooks[0].ID)
	if w.Replay == nil || w.Replay.From != 2 || w.Replay.End.Block != 3 || w.PositionBlock != 1 {
		t.Errorf("after replay --from-block 2 --to-block 3: position %d, replay %+v", w.PositionBlock, w.Replay)
	}
	if list := must("list", "--key", "1"); !strings.Contains(list, "replaying blocks 2 to 3, then after block 3") {
		t.Errorf("list does not show the replay under way:\n%s", list)
	}
	for bad, says := range map[string]string{
		"replay 1 --from-block 3 --to-block 2":       "--to-block 2 is before --from-block 3",
		"replay 1 --from-block 2 --to-block 99":      "--to-block: is not indexed yet",
		"replay 1 --message nonsense":                "--message: is not a message id",
		"replay 1 --message wh2_5_0x6_-1_-1":         "--message: is a message of webhook 2, not of webhook 1",
		"replay 1 --message x --from-block 2":        "not both",
		"replay 1 --to-block 2":                      "is required",
		"replay 1 --message wh1_5_0x6_-1_-1:removed": "retraction",
	} {
		if out, err := run(strings.Fields(bad)...); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("webhooks %s: %v (%s), want an error saying %q", bad, err, out, says)
		}
	}

	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(must("list", "--json", "--key", "2")), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("list --json: %v in %s", err, line)
		}
		lines = append(lines, m)
	}
	if len(lines) != 1 || lines[0]["id"] != 2.0 || lines[0]["behindBlocks"] != 3.0 || lines[0]["status"] != "active" {
		t.Errorf("list --json --key 2: %v", lines)
	}

	if out := must("delete", "2"); !strings.Contains(out, "Deleted webhook 2") {
		t.Errorf("delete: %s", out)
	}
	for _, bad := range [][]string{{"delete", "2"}, {"pause", "x"}, {"replay", "1"}, {"resume"}, {"frobnicate"}} {
		if out, err := run(bad...); err == nil {
			t.Errorf("webhooks %v: no error (%s)", bad, out)
		} else {
			t.Logf("webhooks %v: %v", bad, strings.SplitN(err.Error(), "\n", 2)[0])
		}
	}
}
