// Package pglocal runs a private PostgreSQL cluster with the PostgreSQL server
// installed on this machine (initdb, pg_ctl, postgres). `starkgraph dev` keeps
// one under ./.starkgraph/ and tests start one per test binary (db/dbtest).
//
// Files:
//
//	<DataDir>/                 the cluster (initdb), owned by the server user
//	<DataDir>/postgres.log     the server's log
//	<DataDir>/starkgraph.conf  our settings, rewritten at every Start
//	<parent of DataDir>/run/   the unix socket (or /tmp/starkgraph-pg-<hash>/
//	                           when that path is too long for a socket)
//
// When this process is root the server programs run as the OS user postgres,
// because initdb and postgres refuse to run as root.
package pglocal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lib/pq"
)

// Options say where the cluster lives and how it listens.
type Options struct {
	// DataDir holds the cluster; created by initdb when it has none yet.
	DataDir string
	// Port is the TCP port on 127.0.0.1; 0 listens on the unix socket only.
	Port int
	// Logger receives what the cluster does; nil means slog.Default().
	Logger *slog.Logger
	// Fast trades crash safety for speed (fsync off and friends): for tests.
	Fast bool
}

// Cluster is a started server. Its methods are safe to call concurrently.
type Cluster struct {
	binDir    string
	dataDir   string
	socketDir string
	port      int  // in the socket's name, and on 127.0.0.1 when listenTCP
	listenTCP bool // Options.Port > 0
	owner     *owner
	log       *slog.Logger
}

const (
	superuser      = "postgres"
	defaultPort    = 5432 // names the socket file when we listen on no TCP port
	settingsFile   = "starkgraph.conf"
	logFile        = "postgres.log"
	maxLogSize     = 16 << 20 // rotate the server log at start beyond this
	startTimeout   = 60 * time.Second
	maxSocketPath  = 107         // sizeof(sun_path) - 1 on Linux
	socketFileName = ".s.PGSQL." // + port
)

// Start brings up the cluster in opts.DataDir: it creates it if the directory
// holds none, reuses a server that is already running there (say, left behind
// by a process that was killed), and clears a stale postmaster.pid.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("pglocal: Options.DataDir is empty")
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("pglocal: port %d out of range", opts.Port)
	}
	binDir, err := Find()
	if err != nil {
		return nil, err
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, err
	}
	own, err := serverOwner()
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		binDir:    binDir,
		dataDir:   dataDir,
		port:      opts.Port,
		listenTCP: opts.Port > 0,
		owner:     own,
		log:       opts.Logger,
	}
	if c.port == 0 {
		c.port = defaultPort
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.log = c.log.With("datadir", dataDir)
	c.socketDir = socketDirFor(dataDir, c.port)

	if err := c.prepareDirs(); err != nil {
		return nil, err
	}
	if err := c.owner.chownTree(dataDir); err != nil {
		return nil, fmt.Errorf("give %s to the OS user %s: %w", dataDir, serverUser, err)
	}
	if err := c.initIfEmpty(ctx, opts.Fast); err != nil {
		return nil, err
	}
	if err := c.writeSettings(opts.Fast); err != nil {
		return nil, err
	}
	reused, err := c.reuseOrClear(ctx)
	if err != nil {
		return nil, err
	}
	if !reused {
		if err := c.start(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// socketDirFor is <parent of dataDir>/run, or a short directory under /tmp
// named after dataDir when the socket's path would be too long.
func socketDirFor(dataDir string, port int) string {
	dir := filepath.Join(filepath.Dir(dataDir), "run")
	if len(filepath.Join(dir, socketFileName+strconv.Itoa(port))) <= maxSocketPath {
		return dir
	}
	sum := sha256.Sum256([]byte(dataDir))
	return filepath.Join("/tmp", "starkgraph-pg-"+hex.EncodeToString(sum[:6]))
}

// prepareDirs creates the data and socket directories and hands them to the
// server user.
func (c *Cluster) prepareDirs() error {
	for _, dir := range []string{c.dataDir, c.socketDir} {
		if err := mkdirReachable(filepath.Dir(dir)); err != nil {
			return err
		}
		if err := c.owner.checkCanReach(filepath.Dir(dir)); err != nil {
			return err
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		info, err := os.Lstat(dir)
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", dir)
		}
		if err := c.owner.chown(dir); err != nil {
			return fmt.Errorf("give %s to the OS user %s: %w", dir, serverUser, err)
		}
		// PostgreSQL insists on 0700 (or 0750) for its data directory; the
		// socket directory keeps others away from a trust-authenticated server.
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// initIfEmpty runs initdb unless the data directory already holds a cluster.
func (c *Cluster) initIfEmpty(ctx context.Context, fast bool) error {
	if _, err := os.Stat(filepath.Join(c.dataDir, "PG_VERSION")); err == nil {
		return nil
	}
	entries, err := os.ReadDir(c.dataDir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty and holds no PostgreSQL cluster (no PG_VERSION): "+
			"move its files away or choose another directory", c.dataDir)
	}
	c.log.Info("creating PostgreSQL cluster")
	args := []string{"-D", c.dataDir, "-U", superuser, "--auth=trust",
		"--encoding=UTF8", "--locale=C"}
	if fast {
		args = append(args, "--no-sync")
	}
	if _, err := c.run(ctx, "initdb", args...); err != nil {
		return err
	}
	// postgresql.conf stays as initdb wrote it; our settings live in their own
	// file so that we can rewrite them at every start.
	conf, err := os.OpenFile(filepath.Join(c.dataDir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(conf, "\n# Added by starkgraph (db/pglocal).\ninclude_if_exists = '%s'\n", settingsFile)
	if cerr := conf.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeSettings writes the settings for this start: where to listen, and
// sizes that suit a development machine rather than a dedicated server.
func (c *Cluster) writeSettings(fast bool) error {
	listen := ""
	if c.listenTCP {
		listen = "127.0.0.1"
	}
	settings := [][2]string{
		{"listen_addresses", quoteConf(listen)},
		{"port", strconv.Itoa(c.port)},
		{"unix_socket_directories", quoteConf(c.socketDir)},
		{"max_connections", "100"},
		{"shared_buffers", "'128MB'"},
		{"work_mem", "'16MB'"},
		{"maintenance_work_mem", "'128MB'"},
		{"effective_cache_size", "'1GB'"},
		{"max_wal_size", "'1GB'"},
		{"timezone", "'UTC'"},
		{"log_timezone", "'UTC'"},
	}
	if fast {
		// A test cluster is thrown away after the run: nothing need survive a
		// crash, so skip every flush and keep the WAL to the minimum.
		settings = append(settings,
			[2]string{"shared_buffers", "'64MB'"},
			[2]string{"fsync", "off"},
			[2]string{"synchronous_commit", "off"},
			[2]string{"full_page_writes", "off"},
			[2]string{"wal_level", "minimal"},
			[2]string{"max_wal_senders", "0"},
			[2]string{"checkpoint_timeout", "'30min'"},
		)
	}
	var b strings.Builder
	b.WriteString("# Written by starkgraph (db/pglocal) at every start: edits here are lost.\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "%s = %s\n", s[0], s[1])
	}
	path := filepath.Join(c.dataDir, settingsFile)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return c.owner.chown(path)
}

// quoteConf quotes a string value for postgresql.conf.
func quoteConf(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// reuseOrClear looks at the pid file a previous server left. It reports true
// when a server is running there and listening where we want it; it stops one
// that listens elsewhere, and removes the pid file of one that is gone.
func (c *Cluster) reuseOrClear(ctx context.Context) (reused bool, err error) {
	pidFile, err := readPostmasterPID(c.dataDir)
	if err != nil {
		return false, err
	}
	if pidFile == nil || !isPostmasterOf(pidFile.pid, c.dataDir) {
		if pidFile != nil {
			c.log.Warn("removing stale postmaster.pid left by a server that is no longer running",
				"pid", pidFile.pid)
			if err := os.Remove(filepath.Join(c.dataDir, "postmaster.pid")); err != nil {
				return false, err
			}
		}
		return false, c.clearStaleSocketLock()
	}
	if pidFile.port == c.port && pidFile.socketDir == c.socketDir && c.ready(ctx) {
		c.log.Info("reusing PostgreSQL server that is already running", "pid", pidFile.pid)
		return true, nil
	}
	c.log.Info("restarting running PostgreSQL server to change where it listens",
		"pid", pidFile.pid, "port", pidFile.port, "socket_dir", pidFile.socketDir)
	return false, c.Stop(ctx)
}

// clearStaleSocketLock removes the lock file (and socket) that a dead server
// left in the socket directory: PostgreSQL would refuse to start when the pid
// in it is a zombie or was reused by another program.
func (c *Cluster) clearStaleSocketLock() error {
	socket := filepath.Join(c.socketDir, socketFileName+strconv.Itoa(c.port))
	pid := readLockPID(socket + ".lock")
	if pid == 0 || isAnyPostmaster(pid) {
		return nil // none, or a live server's: PostgreSQL will say which
	}
	c.log.Warn("removing stale socket lock left by a server that is no longer running", "pid", pid)
	if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Remove(socket + ".lock")
}

// ready reports whether the server answers a query on our socket.
func (c *Cluster) ready(ctx context.Context) bool {
	conn, err := sql.Open("postgres", c.URL("postgres"))
	if err != nil {
		return false
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return conn.PingContext(ctx) == nil
}

func (c *Cluster) start(ctx context.Context) error {
	logPath := filepath.Join(c.dataDir, logFile)
	if info, err := os.Stat(logPath); err == nil && info.Size() > maxLogSize {
		_ = os.Rename(logPath, logPath+".old")
	}
	began := time.Now()
	// After a crash, children of the old server may hold its shared memory for
	// a moment, and PostgreSQL refuses to start until they are gone: retry.
	for attempt := 1; ; attempt++ {
		_, err := c.run(ctx, "pg_ctl", "start", "-w", "-t", strconv.Itoa(int(startTimeout.Seconds())),
			"-D", c.dataDir, "-l", logPath)
		if err == nil {
			break
		}
		tail := logTail(logPath)
		if attempt < 20 && strings.Contains(tail, "pre-existing shared memory block") {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(250 * time.Millisecond):
				continue
			}
		}
		return fmt.Errorf("%w\nend of %s:\n%s", err, logPath, tail)
	}
	c.log.Info("PostgreSQL started", "took", time.Since(began).Round(time.Millisecond),
		"socket_dir", c.socketDir, "tcp_port", c.tcpPort())
	return nil
}

func (c *Cluster) tcpPort() int {
	if !c.listenTCP {
		return 0
	}
	return c.port
}

// logTail returns the last lines of the server log, for error messages.
func logTail(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}

// run runs one of the server programs, as the server user when we are root.
func (c *Cluster) run(ctx context.Context, program string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, programPath(c.binDir, program), args...)
	cmd.Dir = "/" // our working directory may be closed to the server user
	cmd.Env = serverEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// pg_ctl hands the server's output to the log file, so the server never
	// holds our pipe; WaitDelay guards against that changing.
	cmd.WaitDelay = 5 * time.Second
	if c.owner != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.owner.credential()}
	}
	err := cmd.Run()
	if err != nil {
		return out.Bytes(), fmt.Errorf("%s %s: %w\n%s", program, strings.Join(args, " "), err,
			strings.TrimSpace(out.String()))
	}
	return out.Bytes(), nil
}

// serverEnv is our environment without the PG* variables, which would
// otherwise steer initdb and pg_ctl to some other cluster.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

// URL returns a lib/pq connection URL for database dbname over the unix socket.
func (c *Cluster) URL(dbname string) string {
	q := url.Values{}
	q.Set("host", c.socketDir)
	q.Set("port", strconv.Itoa(c.port))
	q.Set("sslmode", "disable")
	return (&url.URL{Scheme: "postgres", User: url.User(superuser), Path: "/" + dbname,
		RawQuery: q.Encode()}).String()
}

// TCPURL returns a URL over TCP for programs that cannot use a unix socket,
// or "" when the cluster listens on the socket only (Options.Port == 0).
func (c *Cluster) TCPURL(dbname string) string {
	if !c.listenTCP {
		return ""
	}
	return (&url.URL{Scheme: "postgres", User: url.User(superuser),
		Host: "127.0.0.1:" + strconv.Itoa(c.port), Path: "/" + dbname,
		RawQuery: "sslmode=disable"}).String()
}

// DataDir is the absolute path of the cluster's data directory.
func (c *Cluster) DataDir() string { return c.dataDir }

// SocketDir is the directory that holds the server's unix socket.
func (c *Cluster) SocketDir() string { return c.socketDir }

// CreateDatabase creates database name; one that already exists is left as it is.
func (c *Cluster) CreateDatabase(ctx context.Context, name string) error {
	conn, err := sql.Open("postgres", c.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name))
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "42P04" { // duplicate_database
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	c.log.Info("created database", "name", name)
	return nil
}

// Stop shuts the server down, ending open sessions (pg_ctl stop -m fast).
// Stopping a server that is not running is not an error.
func (c *Cluster) Stop(ctx context.Context) error {
	pidFile, err := readPostmasterPID(c.dataDir)
	if err != nil {
		return err
	}
	if pidFile == nil || !isPostmasterOf(pidFile.pid, c.dataDir) {
		return nil
	}
	if _, err := c.run(ctx, "pg_ctl", "stop", "-w", "-m", "fast", "-t", "60", "-D", c.dataDir); err != nil {
		return err
	}
	c.log.Info("PostgreSQL stopped")
	return nil
}

// Kill shuts down at once (SIGQUIT: PostgreSQL's immediate shutdown) the
// server running in dataDir, if any, and waits for it to exit. It is for
// cleaning up after an owner that died without calling Stop, such as a test
// binary killed by a timeout.
func Kill(dataDir string) error {
	dataDir, err := filepath.Abs(dataDir)
	if err != nil {
		return err
	}
	pidFile, err := readPostmasterPID(dataDir)
	if err != nil || pidFile == nil || !isPostmasterOf(pidFile.pid, dataDir) {
		return err
	}
	if err := syscall.Kill(pidFile.pid, syscall.SIGQUIT); err != nil {
		return fmt.Errorf("stop PostgreSQL (pid %d) in %s: %w", pidFile.pid, dataDir, err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if state, _ := lookAtProcess(pidFile.pid); state == procGone {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("PostgreSQL (pid %d) in %s did not exit after SIGQUIT", pidFile.pid, dataDir)
}

// BaseBackup copies the running cluster into dataDir, which must hold nothing yet, as a
// streaming replica of it (pg_basebackup -R: standby.signal and primary_conninfo are
// written). Started with Start, the copy follows this cluster read-only. The cluster must
// run without Options.Fast, whose minimal WAL cannot feed a replica.
func (c *Cluster) BaseBackup(ctx context.Context, dataDir string) error {
	dataDir, err := filepath.Abs(dataDir)
	if err != nil {
		return err
	}
	if err := mkdirReachable(filepath.Dir(dataDir)); err != nil {
		return err
	}
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		return err
	}
	if err := c.owner.chown(dataDir); err != nil {
		return fmt.Errorf("give %s to the OS user %s: %w", dataDir, serverUser, err)
	}
	_, err = c.run(ctx, "pg_basebackup", "-D", dataDir, "-R", "-X", "stream", "-c", "fast",
		"-h", c.socketDir, "-p", strconv.Itoa(c.port), "-U", superuser)
	return err
}
