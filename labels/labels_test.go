package labels

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/starknet"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// TestDefaultListsParse: the embedded lists parse, every address is a valid felt listed
// once, every entry says where it comes from, and the tokens the explorer verified before
// the list existed still are.
func TestDefaultListsParse(t *testing.T) {
	for _, chain := range []string{ChainMainnet, ChainSepolia} {
		l := Default(chain)
		if l == nil || len(l.Labels) < 10 {
			t.Fatalf("%s: no default list (%v)", chain, l)
		}
		for _, e := range l.Labels {
			if _, err := starknet.ParseFelt(e.Address); err != nil {
				t.Errorf("%s: %s: %v", chain, e.Name, err)
			}
			if e.Source == "" {
				t.Errorf("%s: %s (%s) has no source", chain, e.Name, e.Address)
			}
		}
	}
	verified := map[string]bool{}
	for _, e := range Default(ChainMainnet).Labels {
		if e.Kind == KindToken && e.Verified {
			verified[e.Felt().Hex()] = true
		}
	}
	for _, a := range []string{"0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7", "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d",
		"0x53c91253bc9682c04929ca02ed00b3e423f6710d2ee7e0d5ebb06f3ecf368a8", "0x3fe2b97c1fd336e750087d68b9b867997fd64a2661ff3ca5a7c771641e8e7ac"} {
		if !verified[a] {
			t.Errorf("%s is not a verified token of the mainnet list", a)
		}
	}
	if Default("0x1234") != nil {
		t.Error("a list for an unknown chain")
	}
}

func TestParseRejects(t *testing.T) {
	for name, text := range map[string]string{
		"bad felt":      `labels: [{address: "0xzz", name: X}]`,
		"too big":       `labels: [{address: "0x800000000000011000000000000000000000000000000000000000000000001", name: X}]`,
		"no name":       `labels: [{address: "0x1"}]`,
		"bad kind":      `labels: [{address: "0x1", name: X, kind: person}]`,
		"twice":         `labels: [{address: "0x1", name: X}, {address: "0x0001", name: Y}]`,
		"unknown field": `labels: [{address: "0x1", name: X, colour: red}]`,
		"bad logo":      `labels: [{address: "0x1", name: X, logo: "javascript:alert(1)"}]`,
		"verified acct": `labels: [{address: "0x1", name: X, kind: account, verified: true}]`,
	} {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	l, err := Parse([]byte("labels:\n  - {address: \"0x00AB\", name: \" Alice \", logo: /logos/A.svg}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e := l.Labels[0]; e.Address != starknet.MustFelt("0xab").Padded() || e.Name != "Alice" || e.Kind != KindContract {
		t.Fatalf("%+v", e)
	}
}

// TestLabelCommandsRoundTrip: import, list and rm through the command, against a database.
func TestLabelCommandsRoundTrip(t *testing.T) {
	d := dbtest.New(t)
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "labels.yaml")
	text := `labels:
  - {address: "0x0abc", name: My Token, kind: token, verified: true, logo: "https://example.com/t.png", source: test}
  - {address: "0x0def", name: Treasury, kind: account, source: test}
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := RunCommand(ctx, d, args, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	run("import", file)
	var got []struct {
		Entry
		Origin string `json:"origin"`
	}
	if err := json.Unmarshal([]byte(run("list", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "My Token" || !got[0].Verified || got[0].Logo != "https://example.com/t.png" ||
		got[0].Kind != KindToken || got[0].Source != "test" || got[0].Origin != db.LabelOriginCLI || got[1].Name != "Treasury" {
		t.Fatalf("list after import: %+v", got)
	}
	if out := run("list"); !strings.Contains(out, "Treasury") {
		t.Fatalf("table: %s", out)
	}
	run("rm", "0xdef")
	if err := json.Unmarshal([]byte(run("list", "--json")), &got); err != nil || len(got) != 1 {
		t.Fatalf("after rm: %+v %v", got, err)
	}
	if err := RunCommand(ctx, d, []string{"rm", "0xdef"}, &bytes.Buffer{}); err == nil {
		t.Fatal("removing a missing label succeeded")
	}
	if err := RunCommand(ctx, d, []string{"rm", "0xnotafelt"}, &bytes.Buffer{}); err == nil {
		t.Fatal("a bad address was accepted")
	}
}

// TestLoaderAppliesDefaultsAndFile: the default list of the recorded chain, then the
// file's entries over it; an import survives reloads and wins over the file; tokens and
// validators take their flags from the labels.
func TestLoaderAppliesDefaultsAndFile(t *testing.T) {
	d := dbtest.New(t)
	ctx := context.Background()
	strk := starknet.MustFelt("0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")
	dbtest.Exec(t, d, `INSERT INTO tokens (address, standard, name, symbol) VALUES ($1, 'erc20', 'Starknet Token', 'STRK'), ('\x0777', 'erc20', 'Other', 'OTH')`, db.FeltOf(strk))
	dbtest.Exec(t, d, `UPDATE tokens SET verified = true WHERE address = '\x0777'`)
	dbtest.Exec(t, d, `UPDATE indexer_state SET chain_id = $1`, ChainMainnet)
	file := filepath.Join(t.TempDir(), "labels.yaml")
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`labels: [{address: "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d", name: STRK (ours), kind: token, verified: true, logo: /logos/STRK.svg}]`)
	l := &Loader{Conn: d, File: file}
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	name := func(addr starknet.Felt) string {
		rows, err := db.NewStore(d).AliasesOf(ctx, []db.Felt{db.FeltOf(addr)})
		if err != nil || len(rows) != 1 {
			t.Fatalf("%v %v", rows, err)
		}
		return rows[0].Name
	}
	if n := name(strk); n != "STRK (ours)" {
		t.Fatalf("file over default: %q", n)
	}
	var tok struct {
		Verified bool    `db:"verified"`
		Logo     *string `db:"logo_url"`
	}
	if err := d.Get(&tok, `SELECT verified, logo_url FROM tokens WHERE address = $1`, db.FeltOf(strk)); err != nil || !tok.Verified || tok.Logo == nil || *tok.Logo != "/logos/STRK.svg" {
		t.Fatalf("token flags: %+v %v", tok, err)
	}
	var other bool
	if err := d.Get(&other, `SELECT verified FROM tokens WHERE address = '\x0777'`); err != nil || other {
		t.Fatalf("a token no list verifies stays verified: %v %v", other, err)
	}
	// A new token row takes its flags at insert.
	eth := starknet.MustFelt("0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7")
	dbtest.Exec(t, d, `INSERT INTO tokens (address, standard) VALUES ($1, 'erc20')`, db.FeltOf(eth))
	if err := d.Get(&other, `SELECT verified FROM tokens WHERE address = $1`, db.FeltOf(eth)); err != nil || !other {
		t.Fatalf("ETH not verified at insert: %v %v", other, err)
	}
	// An import wins over the file and stays over a reload; the file's removal falls back
	// to the default.
	if err := db.ImportLabels(ctx, d, []db.Label{{Address: db.FeltOf(strk), Name: "Imported", Kind: "token", Verified: true}}); err != nil {
		t.Fatal(err)
	}
	write(`labels: []`)
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if n := name(strk); n != "Imported" {
		t.Fatalf("after reload: %q", n)
	}
	if _, err := db.DeleteLabel(ctx, d, db.FeltOf(strk)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if n := name(strk); n != "Starknet Token" {
		t.Fatalf("default after removals: %q", n)
	}
	// The file names it again, then drops it: the default is back in the same load.
	write(`labels: [{address: "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d", name: Again, kind: token}]`)
	if _, err := l.Load(ctx); err != nil || name(strk) != "Again" {
		t.Fatalf("file again: %q %v", name(strk), err)
	}
	write(`labels: []`)
	if _, err := l.Load(ctx); err != nil || name(strk) != "Starknet Token" {
		t.Fatalf("dropped by the file: %q %v", name(strk), err)
	}
	// A file that does not parse leaves things as they were.
	write(`labels: [{address: nope}]`)
	if _, err := l.Load(ctx); err == nil {
		t.Fatal("a bad file loaded")
	}
	if n := name(strk); n != "Starknet Token" {
		t.Fatalf("after a bad file: %q", n)
	}
}

// TestReloadOnSIGHUP: Run loads the file at start, and again when the process gets SIGHUP.
func TestReloadOnSIGHUP(t *testing.T) {
	d := dbtest.New(t)
	dbtest.Exec(t, d, `UPDATE indexer_state SET chain_id = '0x1234'`)
	file := filepath.Join(t.TempDir(), "labels.yaml")
	write := func(name string) {
		if err := os.WriteFile(file, []byte(`labels: [{address: "0x0abc", name: `+name+`}]`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Before")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&Loader{Conn: d, File: file, Log: slog.New(slog.DiscardHandler)}).Run(ctx)
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var name string
			_ = d.Get(&name, `SELECT name FROM aliases WHERE address = '\x0abc'`)
			if name == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("name %q, want %q", name, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("Before")
	write("After")
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor("After")
}
