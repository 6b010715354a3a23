package dbtest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

func TestMain(m *testing.M) { Main(m) }

func currentDatabase(t *testing.T, conn *sqlx.DB) string {
	t.Helper()
	var name string
	if err := conn.Get(&name, "SELECT current_database()"); err != nil {
		t.Fatal(err)
	}
	return name
}

func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	var n int
	if err := srv.admin.QueryRow("SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func TestNewGivesMigratedDatabase(t *testing.T) {
	conn := New(t)
	var applied int
	if err := conn.Get(&applied, "SELECT count(*) FROM goose_db_version WHERE version_id > 0"); err != nil {
		t.Fatalf("no migration record in the new database: %v", err)
	}
	entries, err := os.ReadDir("../migrations")
	if err != nil {
		t.Fatal(err)
	}
	var files int
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			files++
		}
	}
	if applied != files {
		t.Errorf("%d migrations applied, %d migration files", applied, files)
	}
	if name := currentDatabase(t, conn); !strings.Contains(name, "testnewgivesmigrateddatabase") {
		t.Errorf("database name %q does not say which test made it", name)
	}
}

func TestDatabasesAreSeparateAndDropped(t *testing.T) {
	var first string
	t.Run("writer", func(t *testing.T) {
		conn := New(t)
		first = currentDatabase(t, conn)
		conn.MustExec("CREATE TABLE scratch (n int)")
		conn.MustExec("INSERT INTO scratch VALUES (1)")
		// A session left open must not stop the drop.
		leftOpen, err := conn.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		_ = leftOpen
	})
	if first == "" {
		t.Fatal("writer subtest did not run")
	}
	if databaseExists(t, first) {
		t.Errorf("database %s still exists after its test ended", first)
	}

	conn := New(t)
	if name := currentDatabase(t, conn); name == first {
		t.Fatalf("New reused the name %s", name)
	}
	var n int
	err := conn.Get(&n, "SELECT count(*) FROM scratch")
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("the other test's table is visible here (err %v)", err)
	}
}

func TestParallelTestsEachGetOne(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	for i := range 6 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			conn := New(t)
			name := currentDatabase(t, conn)
			conn.MustExec("CREATE TABLE mine (n int)")
			conn.MustExec("INSERT INTO mine VALUES ($1)", i)
			var got int
			if err := conn.Get(&got, "SELECT n FROM mine"); err != nil || got != i {
				t.Errorf("read back %d, %v; want %d", got, err, i)
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[name] {
				t.Errorf("two tests got database %s", name)
			}
			seen[name] = true
		})
	}
}

func TestNewURLConnects(t *testing.T) {
	url := NewURL(t)
	conn, err := sqlx.Connect("postgres", url)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	defer conn.Close()
	var version int64
	if err := conn.Get(&version, "SELECT max(version_id) FROM goose_db_version"); err != nil || version == 0 {
		t.Errorf("not migrated: version %d, %v", version, err)
	}
}

// TestSharedServer runs this package's tests in a child test binary pointed at
// our cluster through TEST_DATABASE_URL, as a CI with its own server would.
func TestSharedServer(t *testing.T) {
	if os.Getenv("TEST_DATABASE_URL") != "" {
		t.Skip("already running against TEST_DATABASE_URL")
	}
	srvOrSkip(t)
	child := exec.Command(os.Args[0], "-test.run=^(TestNewGivesMigratedDatabase|TestDatabasesAreSeparateAndDropped|TestParallelTestsEachGetOne)$", "-test.v")
	child.Env = append(os.Environ(), "TEST_DATABASE_URL="+srv.urlFor("postgres"))
	out, err := child.CombinedOutput()
	if err != nil {
		t.Fatalf("child test binary on TEST_DATABASE_URL: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestParallelTestsEachGetOne") {
		t.Fatalf("child ran no database test:\n%s", out)
	}
	// The child dropped everything it made, its template included.
	var left []string
	rows, err := srv.admin.Query(`SELECT datname FROM pg_database WHERE datname LIKE 'sgtest\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		rows.Scan(&name)
		left = append(left, name)
	}
	if len(left) > 0 {
		t.Errorf("child left databases behind: %v", left)
	}
}

func srvOrSkip(t *testing.T) {
	t.Helper()
	serverFor(t)
}

func TestWithDBName(t *testing.T) {
	for base, want := range map[string]string{
		"postgres://u:p@db.example:5432/main?sslmode=disable": "postgres://u:p@db.example:5432/x_1?sslmode=disable",
		"postgres://u@/main?host=%2Ftmp%2Frun&port=5432":      "postgres://u@/x_1?host=%2Ftmp%2Frun&port=5432",
		"host=/tmp/run user=postgres dbname=main":             "host=/tmp/run user=postgres dbname=main dbname=x_1",
	} {
		if got := withDBName(base, "x_1"); got != want {
			t.Errorf("withDBName(%q) = %q, want %q", base, got, want)
		}
	}
}

func TestNamesFitPostgres(t *testing.T) {
	s := &server{prefix: "sgtest_4194304_0a1b2c3d"}
	long := s.nextName("TestSomething/with spaces and a very long subtest name that goes on and on")
	if len(long) > 63 || strings.ContainsAny(long, " /") || strings.HasSuffix(long, "_") {
		t.Errorf("bad name %q", long)
	}
	if a, b := s.nextName("TestX"), s.nextName("TestX"); a == b {
		t.Errorf("names repeat: %q", a)
	}
}

// TestSpeed reports what the database costs a package: run with -v to see.
func TestSpeed(t *testing.T) {
	srvOrSkip(t)
	const n = 5
	began := time.Now()
	for range n {
		t.Run("new", func(t *testing.T) { New(t) }) // includes the drop at its end
	}
	per := time.Since(began) / n
	t.Logf("Main's setup (cluster or server, template, migrations): %v; New + drop: %v each",
		setupTook.Round(time.Millisecond), per.Round(time.Millisecond))
	if per > 2*time.Second {
		t.Errorf("New takes %v", per)
	}
}
