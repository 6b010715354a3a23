package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db/pglocal"
)

// useShared uses the server at baseURL. Several test binaries may share it at
// once, so every database this binary makes starts with a prefix of its own.
func useShared(ctx context.Context, baseURL string) (*server, func() error, error) {
	admin, err := sql.Open("postgres", baseURL)
	if err != nil {
		return nil, nil, fmt.Errorf("TEST_DATABASE_URL: %w", err)
	}
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		return nil, nil, fmt.Errorf("TEST_DATABASE_URL: %w", err)
	}
	random := make([]byte, 4)
	rand.Read(random)
	s := &server{
		admin:  admin,
		urlFor: func(dbname string) string { return withDBName(baseURL, dbname) },
		prefix: fmt.Sprintf("sgtest_%d_%s", os.Getpid(), hex.EncodeToString(random)),
	}
	return s, admin.Close, nil
}

// withDBName returns baseURL pointing at database dbname. It takes both forms
// lib/pq accepts: a URL, or key=value pairs (where a later key wins).
func withDBName(baseURL, dbname string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Scheme == "" {
		return baseURL + " dbname=" + dbname // our names need no quoting
	}
	u.Path, u.RawPath = "/"+dbname, ""
	return u.String()
}

// privatePrefix starts the name of every directory a test binary's private
// cluster lives in, under os.TempDir().
const privatePrefix = "starkgraph-dbtest-"

// ownerFile in that directory holds the pid of the test binary that owns it.
const ownerFile = "owner.pid"

// startPrivate starts a cluster of our own in a new temporary directory.
func startPrivate(ctx context.Context) (*server, func() error, error) {
	if _, err := pglocal.Find(); err != nil {
		return nil, nil, err
	}
	removeAbandoned()
	dir, err := os.MkdirTemp("", privatePrefix)
	if err != nil {
		return nil, nil, err
	}
	// When we are root the cluster runs as the postgres user, which must be
	// able to enter this directory; MkdirTemp makes it 0700.
	err = os.Chmod(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	dataDir := filepath.Join(dir, "data")
	cluster, err := startFromSeed(ctx, dataDir)
	if err != nil {
		pglocal.Kill(dataDir) // in case it got as far as starting
		os.RemoveAll(dir)
		return nil, nil, err
	}
	admin, err := sql.Open("postgres", cluster.URL("postgres"))
	if err != nil {
		return nil, nil, err
	}
	s := &server{admin: admin, urlFor: cluster.URL, prefix: "test"}
	tearDown := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := errors.Join(admin.Close(), cluster.Stop(ctx))
		if err == nil {
			keepAsSeed(dataDir) // dropOurs ran first: the cluster is as initdb left it
		}
		if !strings.HasPrefix(cluster.SocketDir(), dir) { // pglocal's fallback for long paths
			err = errors.Join(err, os.RemoveAll(cluster.SocketDir()))
		}
		return errors.Join(err, os.RemoveAll(dir))
	}
	return s, tearDown, nil
}

// removeAbandoned stops and removes the private clusters of test binaries
// that died without cleaning up (a panic, a -timeout, ^C): those leave the
// server running, since pg_ctl detaches it from its parent.
func removeAbandoned() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), privatePrefix+"*"))
	for _, dir := range dirs {
		if !ownerGone(dir) {
			continue
		}
		if err := pglocal.Kill(filepath.Join(dir, "data")); err != nil {
			fmt.Fprintln(os.Stderr, "dbtest: abandoned test cluster:", err)
			continue
		}
		os.RemoveAll(dir)
	}
}

// ownerGone reports whether the test binary that made dir has exited. A dir
// without an owner file yet may be in the making, unless it is old.
func ownerGone(dir string) bool {
	raw, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		info, statErr := os.Stat(dir)
		return statErr == nil && time.Since(info.ModTime()) > 10*time.Minute
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		return true
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// initdb takes seconds, most of a package's setup, so the first test binary
// to finish keeps its emptied cluster as a seed, and the next ones start from
// a copy of it. The seed is never changed once made; a bad one is discarded.

// seedDir is where the seed for this PostgreSQL install and user lives.
func seedDir() string {
	binDir, _ := pglocal.Find()
	if real, err := filepath.EvalSymlinks(filepath.Join(binDir, "initdb")); err == nil {
		binDir = real
	}
	sum := sha256.Sum256([]byte(binDir))
	return filepath.Join(os.TempDir(), fmt.Sprintf("starkgraph-pgseed-%d-%x", os.Getuid(), sum[:6]))
}

// startFromSeed starts a cluster in dataDir, copied from the seed when there
// is one, made by initdb otherwise.
func startFromSeed(ctx context.Context, dataDir string) (*pglocal.Cluster, error) {
	opts := pglocal.Options{DataDir: dataDir, Fast: true, Logger: discardLogs}
	seed := seedDir()
	if _, err := os.Stat(filepath.Join(seed, "PG_VERSION")); err == nil {
		if out, err := exec.CommandContext(ctx, "cp", "-a", seed, dataDir).CombinedOutput(); err == nil {
			cluster, err := pglocal.Start(ctx, opts)
			if err == nil {
				return cluster, nil
			}
			pglocal.Kill(dataDir)
			fmt.Fprintf(os.Stderr, "dbtest: discarding the seed cluster %s: %v\n", seed, err)
			os.RemoveAll(seed)
		} else {
			fmt.Fprintf(os.Stderr, "dbtest: copy seed cluster: %v: %s\n", err, out)
		}
		if err := os.RemoveAll(dataDir); err != nil {
			return nil, err
		}
	}
	return pglocal.Start(ctx, opts)
}

// keepAsSeed moves a cleanly stopped, emptied cluster to the seed's place,
// unless there is a seed already.
func keepAsSeed(dataDir string) {
	seed := seedDir()
	if _, err := os.Stat(seed); err == nil {
		return
	}
	os.Remove(filepath.Join(dataDir, "postgres.log"))
	// Rename is atomic: a concurrent binary that kept its own first wins, and
	// ours is then removed with the rest of its directory.
	_ = os.Rename(dataDir, seed)
}

// ClusterDir is a fresh directory for a test's own cluster that the server's OS user can
// enter (as root, clusters run as postgres; t.TempDir's are 0700), removed after the test.
func ClusterDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "starkgraph-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
