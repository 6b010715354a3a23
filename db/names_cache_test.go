package db_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// namesProbe is a store whose names statements are counted, with the keys each one asked for.
type namesProbe struct {
	t      *testing.T
	store  *db.Store
	asked  [][]string // the keys of each names statement, in order
	hits   int
	misses int
}

func newNamesProbe(t *testing.T, conn *sqlx.DB, ttl time.Duration, size int) *namesProbe {
	p := &namesProbe{t: t, store: db.NewStore(conn)}
	p.store.CacheNamesSized(ttl, size, func(hits, misses int) { p.hits += hits; p.misses += misses })
	p.store.OnQuery = func(query string, args []any) {
		if query != db.NamesOfSQL {
			return
		}
		var keys []string
		for _, k := range args[0].(pq.ByteaArray) {
			keys = append(keys, db.Felt(k).Hex())
		}
		p.asked = append(p.asked, keys)
	}
	return p
}

// names looks addrs up and returns their names by address ("" for none), and how many names
// statements the lookup ran.
func (p *namesProbe) names(addrs ...db.Felt) (map[string]string, int) {
	p.t.Helper()
	before := len(p.asked)
	rows, err := p.store.AliasesOf(context.Background(), addrs)
	if err != nil {
		p.t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		if _, dup := out[r.Address.Hex()]; dup {
			p.t.Errorf("%s named twice", r.Address.Hex())
		}
		out[r.Address.Hex()] = r.Name + "/" + r.Source
	}
	return out, len(p.asked) - before
}

func insertToken(t *testing.T, conn *sqlx.DB, addr db.Felt, name string) {
	t.Helper()
	dbtest.Exec(t, conn, `INSERT INTO tokens (address, standard, name, symbol) VALUES ($1, 'erc20', $2, 'TKN')
		ON CONFLICT (address) DO UPDATE SET name = excluded.name`, addr, name)
}

// A batch's names come from the cache: a name and the absence of one are both kept, only the
// keys the cache lacks go to SQL (in one statement), and a batch it holds entirely runs none.
func TestNamesCacheKeepsNamesAndAbsences(t *testing.T) {
	conn := dbtest.New(t)
	named, unnamed, later := db.MustFelt("0x123"), db.MustFelt("0x456"), db.MustFelt("0x789")
	insertToken(t, conn, named, "Named Token")
	p := newNamesProbe(t, conn, time.Minute, 100)

	got, statements := p.names(named, unnamed, named)
	if statements != 1 || got["0x123"] != "Named Token/token" || len(got) != 1 {
		t.Fatalf("first lookup: %v in %d statements, want the token's name in 1", got, statements)
	}
	if !slices.Equal(p.asked[0], []string{"0x123", "0x456"}) {
		t.Errorf("the statement asked for %v, want each key once", p.asked[0])
	}
	got, statements = p.names(unnamed, named)
	if statements != 0 || got["0x123"] != "Named Token/token" || len(got) != 1 {
		t.Fatalf("second lookup: %v in %d statements, want the same name from the cache", got, statements)
	}
	// Leading zeros name the same key.
	if got, statements = p.names(db.Felt{0, 0, 0x01, 0x23}); statements != 0 || got["0x123"] != "Named Token/token" {
		t.Errorf("a padded key: %v in %d statements", got, statements)
	}
	// Only the key the cache lacks is read.
	got, statements = p.names(named, later, unnamed)
	if statements != 1 || !slices.Equal(p.asked[len(p.asked)-1], []string{"0x789"}) || len(got) != 1 {
		t.Errorf("a batch with one new key: %v in %d statements asking %v", got, statements, p.asked[len(p.asked)-1])
	}
	if p.hits != 5 || p.misses != 3 {
		t.Errorf("counted %d hits and %d misses, want 5 and 3", p.hits, p.misses)
	}

	// Without a cache (ttl 0) every lookup reads.
	off := newNamesProbe(t, conn, 0, 100)
	for range 2 {
		if got, statements := off.names(named, unnamed); statements != 1 || got["0x123"] != "Named Token/token" {
			t.Errorf("without a cache: %v in %d statements", got, statements)
		}
	}
}

// A name written behind the process's back (another process: the indexer, a label import)
// shows once the TTL has passed, and not before.
func TestNamesCacheShowsAChangeAfterTheTTL(t *testing.T) {
	conn := dbtest.New(t)
	const ttl = 300 * time.Millisecond
	addr := db.MustFelt("0xabc")
	p := newNamesProbe(t, conn, ttl, 100)
	start := time.Now() // the absence is kept from after this until after kept
	if got, _ := p.names(addr); len(got) != 0 {
		t.Fatalf("before the token: %v", got)
	}
	kept := time.Now()
	insertToken(t, conn, addr, "Late Token")
	if got, statements := p.names(addr); (statements != 0 || len(got) != 0) && time.Since(start) < ttl {
		t.Fatalf("within the TTL: %v in %d statements, want the kept absence", got, statements)
	}
	time.Sleep(time.Until(kept.Add(ttl + 20*time.Millisecond)))
	if got, statements := p.names(addr); statements != 1 || got["0xabc"] != "Late Token/token" {
		t.Fatalf("after the TTL: %v in %d statements, want the new name read", got, statements)
	}
}

// The cache holds at most its size; the least recently used keys go first.
func TestNamesCacheIsBounded(t *testing.T) {
	conn := dbtest.New(t)
	p := newNamesProbe(t, conn, time.Minute, 4)
	var keys []db.Felt
	for i := range 10 {
		keys = append(keys, db.Felt{0x10, byte(i)})
	}
	p.names(keys[:3]...)
	for _, k := range keys[3:] {
		p.names(keys[0]) // keeps 0x1000 the most recently used
		p.names(k)
	}
	if n := p.store.NamesCached(); n != 4 {
		t.Errorf("the cache holds %d keys, want its size 4", n)
	}
	if _, statements := p.names(keys[0], keys[9]); statements != 0 {
		t.Errorf("the recently used keys were read again")
	}
	if _, statements := p.names(keys[1]); statements != 1 {
		t.Errorf("an evicted key was not read again")
	}
}

// The names this process writes show at once through every store's cache: a verified
// class's name (the worker writes on its own connection, not through the reading store),
// and a label.
func TestNamesCacheForgetsWhatTheProcessWrites(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	p := newNamesProbe(t, conn, time.Minute, 100)
	class, account := db.MustFelt("0xc1a55"), db.MustFelt("0xacc")
	if got, _ := p.names(class, account); len(got) != 0 {
		t.Fatalf("before: %v", got)
	}
	if _, statements := p.names(class, account); statements != 0 {
		t.Fatalf("the absences are not kept: the test cannot tell a forgotten cache")
	}

	if _, err := db.NewStore(conn).InsertVerificationJob(ctx, db.NewVerificationJob{ClassHash: class, Name: "MyAccount",
		CompilerVersion: "2.8.2", PackageName: "acct", ContractFile: "src/lib.cairo", Files: map[string]string{"src/lib.cairo": "//"}}); err != nil {
		t.Fatal(err)
	}
	q := db.VerifyQueue{DB: conn}
	job, err := q.Claim(ctx, "test", time.Minute)
	if err != nil || job == nil {
		t.Fatalf("claim: %v %v", job, err)
	}
	if err := q.Succeed(ctx, job, "test", "ok", nil); err != nil {
		t.Fatal(err)
	}
	if got, statements := p.names(class, account); statements != 1 || got["0xc1a55"] != "MyAccount/class" {
		t.Fatalf("after verification: %v in %d statements, want the class's name at once", got, statements)
	}

	if err := db.ImportLabels(ctx, conn, []db.Label{{Address: account, Name: "Treasury", Kind: "account"}}); err != nil {
		t.Fatal(err)
	}
	if got, statements := p.names(class, account); statements != 1 || got["0xacc"] != "Treasury/curated" {
		t.Fatalf("after a label import: %v in %d statements, want the label at once", got, statements)
	}
	if ok, err := db.DeleteLabel(ctx, conn, account); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if got, _ := p.names(account); len(got) != 0 {
		t.Fatalf("after the label's deletion: %v", got)
	}
}

// A lookup that overlapped a names write keeps nothing: its rows may be older than the write.
func TestNamesCacheKeepsNothingReadAcrossAWrite(t *testing.T) {
	conn := dbtest.New(t)
	p := newNamesProbe(t, conn, time.Minute, 100)
	addr := db.MustFelt("0xdef")
	query := p.store.OnQuery
	p.store.OnQuery = func(q string, args []any) {
		query(q, args)
		db.ForgetNames() // a write committing while the statement runs
	}
	p.names(addr)
	p.store.OnQuery = query
	if _, statements := p.names(addr); statements != 1 {
		t.Errorf("a lookup that overlapped a write was kept")
	}
	if _, statements := p.names(addr); statements != 0 {
		t.Errorf("the next lookup was not kept")
	}
}
