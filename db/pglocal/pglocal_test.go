package pglocal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The helper process plays a `starkgraph dev` that is killed: it starts the
// cluster and exits without stopping it.
const helperEnv = "PGLOCAL_TEST_START_AND_EXIT"

func TestMain(m *testing.M) {
	if dataDir := os.Getenv(helperEnv); dataDir != "" {
		if _, err := Start(context.Background(), Options{DataDir: dataDir, Fast: true}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(runTests(m))
}

// seedDataDir holds a cluster made once by initdb (seconds), which tests that
// are not about initdb copy (milliseconds).
var seedDataDir string

func runTests(m *testing.M) int {
	if _, err := Find(); err == nil {
		dir, err := os.MkdirTemp("", "pglocal-seed-")
		if err == nil {
			defer os.RemoveAll(dir)
			err = os.Chmod(dir, 0o755)
		}
		var c *Cluster
		if err == nil {
			quiet := slog.New(slog.DiscardHandler)
			c, err = Start(context.Background(), Options{DataDir: filepath.Join(dir, "data"), Fast: true, Logger: quiet})
		}
		if err == nil {
			err = c.Stop(context.Background())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "pglocal: making the seed cluster:", err)
			return 1
		}
		seedDataDir = c.DataDir()
	}
	return m.Run()
}

// seededDataDir returns a data dir in a fresh test directory holding a copy
// of the seed cluster.
func seededDataDir(t *testing.T) string {
	t.Helper()
	dataDir := filepath.Join(testDir(t), "data")
	if out, err := exec.Command("cp", "-a", seedDataDir, dataDir).CombinedOutput(); err != nil {
		t.Fatalf("copy seed cluster: %v\n%s", err, out)
	}
	return dataDir
}

// needPostgres skips without a PostgreSQL install, except in CI.
func needPostgres(t *testing.T) {
	t.Helper()
	if _, err := Find(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true needs PostgreSQL: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

// testDir returns a fresh directory that the postgres OS user can enter
// (t.TempDir's are 0700 and root's when we run as root).
func testDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pglocal-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, nil))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// startCluster starts a cluster and stops it when the test ends.
func startCluster(t *testing.T, opts Options) *Cluster {
	t.Helper()
	opts.Logger = testLogger(t)
	c, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return c
}

func queryString(t *testing.T, url, query string) string {
	t.Helper()
	conn, err := sql.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var s string
	if err := conn.QueryRow(query).Scan(&s); err != nil {
		t.Fatalf("%s on %s: %v", query, url, err)
	}
	return s
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func serverPID(t *testing.T, dataDir string) int {
	t.Helper()
	p, err := readPostmasterPID(dataDir)
	if err != nil || p == nil {
		t.Fatalf("no postmaster.pid in %s: %v", dataDir, err)
	}
	return p.pid
}

func TestFreshStartThenReuseAfterStop(t *testing.T) {
	needPostgres(t)
	t.Parallel()
	dataDir := filepath.Join(testDir(t), "data")
	port := freePort(t)
	c := startCluster(t, Options{DataDir: dataDir, Port: port, Fast: true})

	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err != nil {
		t.Fatalf("initdb did not run: %v", err)
	}
	if got := queryString(t, c.URL("postgres"), "SHOW fsync"); got != "off" {
		t.Errorf("fsync = %q with Fast, want off", got)
	}
	if got := queryString(t, c.URL("postgres"), "SHOW server_encoding"); got != "UTF8" {
		t.Errorf("server_encoding = %q, want UTF8", got)
	}
	if got := queryString(t, c.TCPURL("postgres"), "SELECT inet_server_addr()::text"); got != "127.0.0.1/32" {
		t.Errorf("over TCP the server address is %q", got)
	}
	ctx := context.Background()
	for range 2 { // a second create of the same database is not an error
		if err := c.CreateDatabase(ctx, "dev db"); err != nil {
			t.Fatalf("CreateDatabase: %v", err)
		}
	}
	if got := queryString(t, c.URL("dev db"), "SELECT current_database()"); got != "dev db" {
		t.Errorf("connected to %q", got)
	}

	if err := c.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if p, _ := readPostmasterPID(dataDir); p != nil {
		t.Fatalf("server still running after Stop (pid %d)", p.pid)
	}
	if err := c.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}

	// Started again without Fast and without TCP: the same cluster, new settings.
	c2 := startCluster(t, Options{DataDir: dataDir})
	if got := queryString(t, c2.URL("dev db"), "SELECT current_database()"); got != "dev db" {
		t.Errorf("database lost across restart: connected to %q", got)
	}
	if got := queryString(t, c2.URL("postgres"), "SHOW fsync"); got != "on" {
		t.Errorf("fsync = %q without Fast, want on", got)
	}
	if c2.TCPURL("postgres") != "" {
		t.Errorf("TCPURL with Port 0 = %q, want empty", c2.TCPURL("postgres"))
	}
}

func TestReusesServerLeftByKilledOwner(t *testing.T) {
	needPostgres(t)
	t.Parallel()
	dataDir := seededDataDir(t)
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), helperEnv+"="+dataDir)
	if out, err := helper.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	leftPID := serverPID(t, dataDir)

	c := startCluster(t, Options{DataDir: dataDir, Fast: true})
	if pid := serverPID(t, dataDir); pid != leftPID {
		t.Errorf("server restarted (pid %d, was %d), want the running one reused", pid, leftPID)
	}
	if got := queryString(t, c.URL("postgres"), "SELECT 'up'"); got != "up" {
		t.Errorf("got %q", got)
	}
}

func TestRecoversFromStalePidFile(t *testing.T) {
	needPostgres(t)
	t.Parallel()
	dataDir := seededDataDir(t)
	c := startCluster(t, Options{DataDir: dataDir, Fast: true})
	pidFile := filepath.Join(dataDir, "postmaster.pid")
	lockFile := filepath.Join(c.SocketDir(), ".s.PGSQL.5432.lock")
	savedPid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	savedLock, err := os.ReadFile(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}

	// As after a reboot: the old pid now belongs to an unrelated live program,
	// so PostgreSQL alone would refuse to start ("is another postmaster running?").
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	withPID := func(saved []byte) []byte {
		_, rest, _ := strings.Cut(string(saved), "\n")
		return []byte(strconv.Itoa(other.Process.Pid) + "\n" + rest)
	}
	if err := os.WriteFile(pidFile, withPID(savedPid), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lockFile, withPID(savedLock), 0o600); err != nil {
		t.Fatal(err)
	}

	c = startCluster(t, Options{DataDir: dataDir, Fast: true})
	if got := queryString(t, c.URL("postgres"), "SELECT 'up'"); got != "up" {
		t.Errorf("got %q", got)
	}
	if pid := serverPID(t, dataDir); pid == other.Process.Pid {
		t.Errorf("pid file still names the unrelated process")
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the unrelated process was harmed: %v", err)
	}
}

func TestRecoversAfterServerCrash(t *testing.T) {
	needPostgres(t)
	t.Parallel()
	dataDir := seededDataDir(t)
	startCluster(t, Options{DataDir: dataDir, Fast: true})
	crashed := serverPID(t, dataDir)
	if err := syscall.Kill(crashed, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait until it is dead (it may linger as a zombie where nobody reaps it).
	for deadline := time.Now().Add(10 * time.Second); ; {
		if state, _ := lookAtProcess(crashed); state == procGone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("killed server did not die")
		}
		time.Sleep(20 * time.Millisecond)
	}

	c := startCluster(t, Options{DataDir: dataDir, Fast: true})
	if got := queryString(t, c.URL("postgres"), "SELECT 'recovered'"); got != "recovered" {
		t.Errorf("got %q", got)
	}
	if pid := serverPID(t, dataDir); pid == crashed {
		t.Errorf("pid file still names the killed server")
	}
}

func TestRefusesDirectoryThatIsNotACluster(t *testing.T) {
	needPostgres(t)
	dataDir := filepath.Join(testDir(t), "data")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{DataDir: dataDir, Logger: testLogger(t)})
	if err == nil || !strings.Contains(err.Error(), "holds no PostgreSQL cluster") {
		t.Fatalf("Start = %v, want a refusal naming the problem", err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "notes.txt")); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}
}

func TestSocketDirFallsBackToTmpForLongPaths(t *testing.T) {
	short := "/home/dev/project/.starkgraph/pgdata"
	if got := socketDirFor(short, 5432); got != "/home/dev/project/.starkgraph/run" {
		t.Errorf("socketDirFor(short) = %q", got)
	}
	long := "/" + strings.Repeat("deep/", 20) + "pgdata"
	got := socketDirFor(long, 5432)
	if !strings.HasPrefix(got, "/tmp/starkgraph-pg-") {
		t.Fatalf("socketDirFor(long) = %q, want a short dir under /tmp", got)
	}
	if len(filepath.Join(got, ".s.PGSQL.65535")) > maxSocketPath {
		t.Errorf("fallback socket path too long: %q", got)
	}
	if again := socketDirFor(long, 5432); again != got {
		t.Errorf("fallback not stable: %q then %q (a restarted owner must find the socket)", got, again)
	}
	if other := socketDirFor(long+"2", 5432); other == got {
		t.Errorf("two data dirs share fallback socket dir %q", got)
	}
}

func TestStartWithLongPath(t *testing.T) {
	needPostgres(t)
	t.Parallel()
	dataDir := filepath.Join(testDir(t), strings.Repeat("long-directory-name/", 5), "data")
	if err := os.MkdirAll(filepath.Dir(dataDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", seedDataDir, dataDir).CombinedOutput(); err != nil {
		t.Fatalf("copy seed cluster: %v\n%s", err, out)
	}
	c := startCluster(t, Options{DataDir: dataDir, Fast: true})
	if !strings.HasPrefix(c.SocketDir(), "/tmp/starkgraph-pg-") {
		t.Errorf("socket dir %q", c.SocketDir())
	}
	if got := queryString(t, c.URL("postgres"), "SELECT 'up'"); got != "up" {
		t.Errorf("got %q", got)
	}
	t.Cleanup(func() { os.RemoveAll(c.SocketDir()) })
}

func TestFindSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", "")
	saved := debianInstallGlob
	t.Cleanup(func() { debianInstallGlob = saved })

	debianInstallGlob = filepath.Join(t.TempDir(), "*", "bin")
	_, err := Find()
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "apt-get install postgresql") {
		t.Fatalf("Find = %v, want ErrNotFound telling what to install", err)
	}

	// A Debian layout off PATH is found, newest major version first.
	root := t.TempDir()
	for _, v := range []string{"9.6", "15", "13"} {
		bin := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range serverPrograms {
			if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	debianInstallGlob = filepath.Join(root, "*", "bin")
	dir, err := Find()
	if want := filepath.Join(root, "15", "bin"); err != nil || dir != want {
		t.Errorf("Find = %q, %v; want %q", dir, err, want)
	}
}

func TestRootSaysWhichDirectoryPostgresCannotEnter(t *testing.T) {
	needPostgres(t)
	if os.Geteuid() != 0 {
		t.Skip("only root hands the cluster to the postgres user")
	}
	closed := filepath.Join(testDir(t), "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{DataDir: filepath.Join(closed, "pgdata"), Logger: testLogger(t)})
	if err == nil || !strings.Contains(err.Error(), "cannot enter "+closed) ||
		!strings.Contains(err.Error(), "chmod o+x") {
		t.Fatalf("Start = %v, want an error naming %s and the fix", err, closed)
	}
	if entries, _ := os.ReadDir(closed); len(entries) > 0 {
		t.Errorf("Start left %d entries in %s before failing", len(entries), closed)
	}
}

func TestRootTakesOverClusterMadeByAnotherUser(t *testing.T) {
	needPostgres(t)
	if os.Geteuid() != 0 {
		t.Skip("only root hands the cluster to the postgres user")
	}
	t.Parallel()
	dataDir := seededDataDir(t)
	// As if a normal user had made it: nobody owns every file.
	err := filepath.WalkDir(dataDir, func(path string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, 65534, 65534)
	})
	if err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, Options{DataDir: dataDir, Fast: true})
	if got := queryString(t, c.URL("postgres"), "SELECT 'up'"); got != "up" {
		t.Errorf("got %q", got)
	}
}
