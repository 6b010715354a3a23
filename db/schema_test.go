package db_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/db/pglocal"
)

// schemaFile is the schema of a freshly migrated database, dumped: the one file to read
// for the tables (db/migrations/00001_baseline.sql says what each holds and who writes it).
const schemaFile = "schema.sql"

// writeSchemaEnv set to 1 makes TestSchemaDump write schemaFile instead of comparing.
const writeSchemaEnv = "STARKGRAPH_WRITE_SCHEMA"

// schemaHeader starts schemaFile; %d is PostgreSQL's major version, whose pg_dump wrote it.
const schemaHeader = `-- The schema of a freshly migrated starkgraph database: pg_dump --schema-only --no-owner
-- --no-privileges of PostgreSQL %d, without goose's table and the lines that vary between
-- runs. Generated: do not edit. A migration that changes the schema regenerates it with
--   %s=1 go test ./db -run TestSchemaDump
-- What each table holds, and who writes it, is in its comment (and in
-- db/migrations/00001_baseline.sql, grouped by what the tables hold).
`

// dumpSchema dumps the schema of the database at url as schemaFile holds it.
func dumpSchema(t *testing.T, url string) (dump string, major int) {
	t.Helper()
	pgDump, err := pglocal.Program("pg_dump")
	if err != nil {
		t.Skipf("no pg_dump: %v", err)
	}
	out, err := exec.Command(pgDump, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", pgDump, err)
	}
	if _, err := fmt.Sscanf(string(regexp.MustCompile(`\d+`).Find(out)), "%d", &major); err != nil {
		t.Fatalf("%s --version: %q", pgDump, out)
	}
	cmd := exec.Command(pgDump, "--schema-only", "--no-owner", "--no-privileges",
		"--exclude-table=public.goose_db_version", "--dbname="+url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", pgDump, err, stderr.String())
	}
	return normalizeDump(string(out)), major
}

// varying are the lines of a dump that change between runs or versions of pg_dump: its
// version, the random key of \restrict, the session's settings.
var varying = regexp.MustCompile(`(?m)^(-- Dumped (from|by) .*|\\(un)?restrict .*|SET .*|SELECT pg_catalog\.set_config.*)\n`)

func normalizeDump(dump string) string {
	dump = varying.ReplaceAllString(dump, "")
	dump = regexp.MustCompile(`\n{3,}`).ReplaceAllString(dump, "\n\n")
	return strings.TrimSpace(dump) + "\n"
}

// TestSchemaDump: db/schema.sql is what a freshly migrated database dumps. When a migration
// changes the schema, regenerate it (the failure says how) and commit it with the migration.
func TestSchemaDump(t *testing.T) {
	dump, major := dumpSchema(t, dbtest.NewURL(t))
	want := fmt.Sprintf(schemaHeader, major, writeSchemaEnv) + "\n" + dump
	if os.Getenv(writeSchemaEnv) == "1" {
		if err := os.WriteFile(schemaFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote db/%s", schemaFile)
		return
	}
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatalf("db/%s: %v; write it with %s=1 go test ./db -run TestSchemaDump", schemaFile, err, writeSchemaEnv)
	}
	got := string(raw)
	if got == want {
		return
	}
	if m := regexp.MustCompile(`PostgreSQL (\d+),`).FindStringSubmatch(got); m != nil && m[1] != fmt.Sprint(major) {
		t.Skipf("db/%s was dumped by PostgreSQL %s's pg_dump, this is %d's: their output differs", schemaFile, m[1], major)
	}
	t.Errorf("db/%s differs from the schema the migrations make (%s):\n%s\n"+
		"If the migrations are right, regenerate it and commit it with them:\n"+
		"    %s=1 go test ./db -run TestSchemaDump",
		schemaFile, firstDifference(got, want), lineDiff(got, want), writeSchemaEnv)
}

// firstDifference names the first line where a and b differ.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("first at line %d", i+1)
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}

// lineDiff lists the lines only in the file (-) and only in the dump (+), at most 40.
func lineDiff(file, dump string) string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			m[l]++
		}
		return m
	}
	inFile, inDump := count(file), count(dump)
	var out []string
	for _, l := range strings.Split(file, "\n") {
		if inDump[l] > 0 {
			inDump[l]--
		} else {
			out = append(out, "-  "+l)
		}
	}
	for _, l := range strings.Split(dump, "\n") {
		if inFile[l] > 0 {
			inFile[l]--
		} else {
			out = append(out, "+  "+l)
		}
	}
	if len(out) > 40 {
		out = append(out[:40], fmt.Sprintf("... and %d more lines", len(out)-40))
	}
	return strings.Join(out, "\n")
}

// TestBaselineDownAndUp: the baseline's down leaves nothing but goose's table, and its up
// again makes the same schema.
func TestBaselineDownAndUp(t *testing.T) {
	ctx := context.Background()
	url := dbtest.NewURL(t)
	want, _ := dumpSchema(t, url)
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := db.MigrateDownTo(ctx, conn.DB, 0); err != nil {
		t.Fatal(err)
	}
	var left []string
	if err := conn.Select(&left, `SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace
		AND c.relname NOT LIKE 'goose_db_version%'
		UNION ALL SELECT p.proname FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
		UNION ALL SELECT t.typname FROM pg_type t WHERE t.typnamespace = 'public'::regnamespace AND t.typtype = 'e'
		ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("after the baseline's down: %q left", left)
	}
	if err := db.Migrate(ctx, conn.DB); err != nil {
		t.Fatal(err)
	}
	if got, _ := dumpSchema(t, url); got != want {
		t.Errorf("the schema after down and up differs:\n%s", lineDiff(want, got))
	}
}
