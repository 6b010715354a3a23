package rest

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
)

// TestNamesCacheSavesTheNamesStatement: with the names cache (serve's default), every GET
// operation that names addresses runs its names statements the first time a page is read
// and none when the same page is read again, with the same names; the slow lists of the
// bench (transactions, by type, by sender, the contracts of a class; by contract the seed has
// no rows, and its items are /beta/txns') run one
// names statement, and save it.
func TestNamesCacheSavesTheNamesStatement(t *testing.T) {
	e := newEnv(t)
	e.store.CacheNames(time.Minute, nil)
	var names, felts int64
	e.store.OnStatementDone = func(name string, _ time.Duration) {
		if name == "AliasesOf" {
			names++
		}
	}
	e.store.OnQuery = func(q string, _ []any) {
		if strings.Contains(q, feltsByIDStatement) { // the Store's cache of felt_ids, warm after the first read
			felts++
		}
	}
	// read returns a page's body and the statements it ran (but felts by id), names
	// statements apart.
	read := func(path string) (body []byte, statements int64, nameStatements int) {
		t.Helper()
		before, beforeNames, beforeFelts := e.store.Statements(), names, felts
		r := e.get(path)
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.raw)
		}
		return r.raw, e.store.Statements() - before - (felts - beforeFelts), int(names - beforeNames)
	}

	slow := []string{"/beta/txns", "/beta/txns?type=0",
		"/beta/tx-activity?sender_address=" + account(1).Hex(), "/beta/classes/" + accountClass.Hex() + "/contracts"}
	var paths []string
	for _, p := range sampleRequests {
		if !slices.Contains(slow, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	named := 0
	for _, path := range append(slow, paths...) {
		db.ForgetNames() // each page starts from an empty cache
		first, statements, firstNames := read(path)
		if firstNames == 0 {
			if slices.Contains(slow, path) {
				t.Errorf("%s ran no names statement", path)
			}
			continue
		}
		named++
		second, statementsAgain, secondNames := read(path)
		if secondNames != 0 || slices.Contains(slow, path) && firstNames != 1 {
			t.Errorf("%s: %d names statements the first time, %d the second; want 1 (a list) and 0", path, firstNames, secondNames)
		}
		if !bytes.Equal(first, second) {
			t.Errorf("%s: the second answer differs:\n%s\n%s", path, first, second)
		}
		if slices.Contains(slow, path) {
			if statementsAgain != statements-1 {
				t.Errorf("%s: %d statements, then %d", path, statements, statementsAgain)
			}
			if !strings.Contains(string(second), `"Ready"`) {
				t.Errorf("%s names nothing: %s", path, second)
			}
			t.Logf("%s: %d statements, then %d", path, statements, statementsAgain)
		}
	}
	if named < 15 {
		t.Errorf("only %d operations ran a names statement", named)
	}
}
