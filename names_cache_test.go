package main

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// serve keeps names for --names-cache-ttl (30 s by default). Without the answer cache, a
// label changed behind its back (by another process) is not seen at once, and /metrics
// counts the hits and misses; with it (the default), the change's notice makes serve forget
// the names it holds, so the next answer names the new label; with --names-cache-ttl 0
// every request reads the names.
func TestServeCachesNames(t *testing.T) {
	dbURL := dbtest.NewURL(t)
	conn, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	class := db.MustFelt("0xc1a55")
	dbtest.Exec(t, conn, `INSERT INTO classes (hash, kind, cairo_version, version) VALUES ($1, 'sierra', 1, '0.1.0')`, class)
	dbtest.Exec(t, conn, `INSERT INTO aliases (address, name) VALUES ($1, 'Before')`, class)
	key := apiKey(t, conn)

	alias := func(base string) string {
		t.Helper()
		var c struct {
			Alias string `json:"alias"`
		}
		getJSON(t, base, key, "/beta/classes/"+class.Hex(), &c)
		return c.Alias
	}
	metric := func(admin, result string) int {
		t.Helper()
		resp, err := http.Get("http://" + admin + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		m := regexp.MustCompile(`(?m)^names_cache_lookups_total\{result="` + result + `"\} (\d+)$`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("/metrics has no names_cache_lookups_total{result=%q}", result)
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}

	cached := startServe(t, dbURL, "--answer-cache-mb", "0")
	if got := alias(cached.base()); got != "Before" {
		t.Fatalf("alias %q, want Before", got)
	}
	dbtest.Exec(t, conn, `UPDATE aliases SET name = 'After' WHERE address = $1`, class)
	if got := alias(cached.base()); got != "Before" {
		t.Errorf("within the TTL: alias %q, want the kept Before", got)
	}
	if hits, misses := metric(cached.admin, "hit"), metric(cached.admin, "miss"); hits < 1 || misses < 1 {
		t.Errorf("%d hits and %d misses counted, want some of each", hits, misses)
	}
	cached.stop(t)

	dbtest.Exec(t, conn, `UPDATE aliases SET name = 'Before' WHERE address = $1`, class)
	following := startServe(t, dbURL)
	if got := alias(following.base()); got != "Before" {
		t.Fatalf("with the answer cache: alias %q, want Before", got)
	}
	dbtest.Exec(t, conn, `UPDATE aliases SET name = 'After' WHERE address = $1`, class)
	got := ""
	for range 100 { // the notice arrives within milliseconds
		if got = alias(following.base()); got == "After" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got != "After" {
		t.Errorf("with the answer cache, after the label changed: alias %q, want After", got)
	}
	following.stop(t)

	uncached := startServe(t, dbURL, "--names-cache-ttl", "0")
	if got := alias(uncached.base()); got != "After" {
		t.Errorf("without the cache: alias %q, want After", got)
	}
	if hits := metric(uncached.admin, "hit"); hits != 0 {
		t.Errorf("without the cache: %d hits", hits)
	}
}
