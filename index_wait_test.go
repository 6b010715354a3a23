package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/internal/syncbuf"
	"github.com/starkgraph/starkgraph/sim"
)

// `starkgraph index` started before its node waits for it: it logs each failed attempt,
// exports indexer_node_up 0 on its admin port, and indexes once the node answers, without
// a restart.
func TestIndexWaitsForTheNode(t *testing.T) {
	dbURL := dbtest.NewURL(t)
	nodeAddr, adminAddr := freePort(t), freePort(t) // nothing listens on nodeAddr yet
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "index", "--rpc", "http://"+nodeAddr+"/rpc/v0_8", "--stop-at", "5",
		"--admin-addr", adminAddr)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "STARKGRAPH_") && !strings.HasPrefix(kv, "STARKNET_RPC_URL=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, runMainEnv+"=1", "DATABASE_URL="+dbURL)
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	// Waiting: two failures logged, the gauge at 0, the process still there.
	metric := func() string {
		resp, err := http.Get("http://" + adminAddr + "/metrics")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "indexer_node_up ") {
				return strings.TrimPrefix(line, "indexer_node_up ")
			}
		}
		return ""
	}
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(stderr.String(), "node handshake failed; retrying") < 2 || metric() != "0" {
		select {
		case err := <-exited:
			t.Fatalf("index exited (%v) while its node was down, want it to wait; stderr:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no retries logged or indexer_node_up not 0 (%q) within 60 s; stderr:\n%s", metric(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The node starts on the address the indexer was given.
	ln, err := net.Listen("tcp", nodeAddr)
	if err != nil {
		t.Fatalf("the node's address was taken meanwhile: %v", err)
	}
	node := &http.Server{Handler: sim.New(sim.Config{Seed: 2, Blocks: 10}).Handlers(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = node.Serve(ln) }()
	defer node.Close()

	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("index ended with %v once the node answered; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("index did not reach block 5 within 90 s of the node starting; stderr:\n%s", stderr.String())
	}
	conn, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var head int64
	if err := conn.Get(&head, `SELECT max(number) FROM blocks`); err != nil || head != 5 {
		t.Fatalf("indexed up to block %d (%v), want 5", head, err)
	}
}
