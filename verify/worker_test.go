package verify

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// childEnv makes this test binary a verification worker process (for the SIGKILL test).
const childEnv = "STARKGRAPH_VERIFY_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChildWorker())
	}
	dbtest.Main(m)
}

// standinVersion is the scarb version the stand-in toolchain is installed as.
const standinVersion = "2.8.4"

// installStandin installs the stand-in scarb (testdata/scarb-standin.sh) as
// DIR/<version>/bin/scarb with the fixture class as what it builds, and returns DIR.
func installStandin(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, standinVersion, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "scarb-standin.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "scarb"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, standinVersion, "class.json"), readFixtureClass(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sources are a project the stand-in builds as package "argent", contract "ArgentAccount":
// target/dev/argent_ArgentAccount.contract_class.json. marker goes into lib.cairo.
func sources(marker string) map[string]string {
	return map[string]string{
		"Scarb.toml":    "[package]\nname = \"argent\"\nversion = \"0.1.0\"\n\n[[target.starknet-contract]]\nsierra = true\n",
		"src/lib.cairo": "// " + marker + "\n#[starknet::contract]\nmod ArgentAccount {\n    #[storage]\n    struct Storage {}\n}\n",
	}
}

func quietLog() *slog.Logger {
	if os.Getenv("VERIFY_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// seedClass writes the fixture class as a Sierra class on chain, for tests that do not
// index a chain.
func seedClass(t testing.TB, conn *sqlx.DB) {
	t.Helper()
	if _, err := conn.Exec(`INSERT INTO classes (hash, kind, cairo_version, version) VALUES ($1, 'sierra', 1, '0.1.0')`,
		db.MustFelt(fixtureClass)); err != nil {
		t.Fatal(err)
	}
}

func submit(t testing.TB, conn *sqlx.DB, version string, files map[string]string) string {
	t.Helper()
	job, err := db.NewStore(conn).InsertVerificationJob(context.Background(), db.NewVerificationJob{
		ClassHash: db.MustFelt(fixtureClass), Name: "ArgentAccount", CompilerVersion: version, ScarbVersion: &version,
		PackageName: "argent", ContractFile: "src/lib.cairo", Files: files,
	})
	if err != nil {
		t.Fatal(err)
	}
	return job.ID
}

// startWorkers runs n workers until the test ends, in the sandbox where bwrap is installed.
func startWorkers(t testing.TB, conn *sqlx.DB, scarbDir, workDir string, n int, lease time.Duration) {
	t.Helper()
	startWorkersWith(t, conn, scarbDir, n, lease, BuildLimits{Timeout: 20 * time.Second, MemoryMiB: 2048, WorkDir: workDir, NoSandbox: noSandbox(t)})
}

func startWorkersWith(t testing.TB, conn *sqlx.DB, scarbDir string, n int, lease time.Duration, lim BuildLimits) {
	t.Helper()
	if !lim.NoSandbox {
		if err := CheckSandbox(context.Background()); err != nil {
			t.Fatal(err) // Run would start no worker
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		Run(ctx, Config{DB: conn, Workers: n, Lease: lease, Poll: 20 * time.Millisecond, Logger: quietLog(),
			Toolchains: Toolchains{Dir: scarbDir}, Limits: lim})
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// noSandbox says whether the tests' workers build without the sandbox: only where bwrap is
// not installed, outside CI (CI installs it, and a CI without it fails here).
func noSandbox(t testing.TB) bool {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err == nil {
		return false
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("bwrap is not installed: CI installs bubblewrap for the build sandbox's tests (.ci/run)")
	}
	t.Log("bwrap is not installed: builds run without the sandbox (apt-get install bubblewrap to test it)")
	return true
}

type jobState struct {
	Status         int     `db:"status"`
	Message        *string `db:"message"`
	Obtained       db.Felt `db:"obtained_class_hash"`
	CompilerOutput *string `db:"compiler_output"`
	Attempts       int     `db:"attempts"`
}

// waitFinal waits for a job to reach 2, 3 or 4.
func waitFinal(t testing.TB, conn *sqlx.DB, id string, within time.Duration) jobState {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var j jobState
		if err := conn.Get(&j, `SELECT status, message, obtained_class_hash, compiler_output, attempts FROM verification_jobs WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if j.Status == db.JobCompileFailed || j.Status == db.JobFail || j.Status == db.JobSuccess {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still at status %d after %s", id, j.Status, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func history(t testing.TB, conn *sqlx.DB, id string) string {
	t.Helper()
	var steps []string
	if err := conn.Select(&steps, `SELECT status::text FROM verification_job_log WHERE job_id = $1 ORDER BY at`, id); err != nil {
		t.Fatal(err)
	}
	return strings.Join(steps, ">")
}

func emptyDir(t testing.TB, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("job directories left behind in %s: %d entries", dir, len(entries))
	}
}

// Each way a job can end, with the words a user needs: the compiler's for a compile
// error, both hashes for a mismatch, the versions for an uninstalled scarb; and the
// compiler sees none of the worker's environment.
func TestWorkerOutcomes(t *testing.T) {
	conn := dbtest.New(t)
	seedClass(t, conn)
	scarbDir, workDir := installStandin(t), t.TempDir()
	t.Setenv("STARKGRAPH_TEST_SECRET", "do-not-leak")
	startWorkers(t, conn, scarbDir, workDir, 2, 5*time.Second)

	mismatch := submit(t, conn, standinVersion, sources("STANDIN_CHANGE_FELT"))
	compileErr := submit(t, conn, standinVersion, sources("STANDIN_COMPILE_ERROR"))
	missing := submit(t, conn, "2.99.0", sources(""))
	env := submit(t, conn, standinVersion, sources("STANDIN_PRINT_ENV"))
	noContract := submit(t, conn, standinVersion, map[string]string{"Scarb.toml": "[package]\nname = \"argent\"\n", "src/lib.cairo": "fn main() {}"})
	sozo := submit(t, conn, standinVersion, sources(""))
	if _, err := conn.Exec(`UPDATE verification_jobs SET build_tool = 'sozo' WHERE id = $1`, sozo); err != nil {
		t.Fatal(err)
	}
	// A job whose workers died three times (its lease ran out each time) is given up.
	doomed := submit(t, conn, standinVersion, sources(""))
	if _, err := conn.Exec(`UPDATE verification_jobs SET status = 5, attempts = 3, lease_until = now() - interval '1 second'
		WHERE id = $1`, doomed); err != nil {
		t.Fatal(err)
	}

	j := waitFinal(t, conn, mismatch, 20*time.Second)
	if j.Status != db.JobFail || j.Obtained == nil || j.Obtained.Equal(db.MustFelt(fixtureClass)) ||
		!strings.Contains(*j.Message, j.Obtained.Padded()) || !strings.Contains(*j.Message, db.MustFelt(fixtureClass).Padded()) {
		t.Errorf("one felt changed: want 3 Fail naming both hashes, got %d %v %v\n%s", j.Status, deref(j.Message), j.Obtained, deref(j.CompilerOutput))
	}
	if h := history(t, conn, mismatch); h != "0>5>1>3" {
		t.Errorf("mismatch history %s, want 0>5>1>3", h)
	}
	j = waitFinal(t, conn, compileErr, 20*time.Second)
	if j.Status != db.JobCompileFailed || !strings.Contains(deref(j.CompilerOutput), "error: Identifier not found.") ||
		!strings.Contains(deref(j.Message), "exit status 1") {
		t.Errorf("compile error: want 2 with the compiler's words, got %d %q %q", j.Status, deref(j.Message), deref(j.CompilerOutput))
	}
	if h := history(t, conn, compileErr); h != "0>5>2" {
		t.Errorf("compile error history %s, want 0>5>2", h)
	}
	j = waitFinal(t, conn, missing, 20*time.Second)
	if j.Status != db.JobCompileFailed || deref(j.Message) != "scarb 2.99.0 is not installed on this verifier (installed: "+standinVersion+")" {
		t.Errorf("uninstalled version: got %d %q", j.Status, deref(j.Message))
	}
	j = waitFinal(t, conn, env, 20*time.Second)
	out := deref(j.CompilerOutput)
	home := "HOME=/job/home\n" // the sandbox's job directory
	if noSandbox(t) {
		home = "HOME=" + workDir
	}
	if j.Status != db.JobCompileFailed || !strings.Contains(out, home) {
		t.Errorf("environment: want HOME inside the job directory, got %d %q", j.Status, out)
	}
	for _, leak := range []string{"do-not-leak", "DATABASE_URL", "STARKGRAPH_"} {
		if strings.Contains(out, leak) {
			t.Errorf("the compiler saw %q of the worker's environment:\n%s", leak, out)
		}
	}
	j = waitFinal(t, conn, noContract, 20*time.Second)
	if j.Status != db.JobCompileFailed || !strings.Contains(deref(j.Message), "argent_ArgentAccount.contract_class.json") {
		t.Errorf("no contract built: got %d %q", j.Status, deref(j.Message))
	}
	j = waitFinal(t, conn, sozo, 20*time.Second)
	if j.Status != db.JobCompileFailed || !strings.Contains(deref(j.Message), "scarb only") {
		t.Errorf("sozo: got %d %q", j.Status, deref(j.Message))
	}
	j = waitFinal(t, conn, doomed, 20*time.Second)
	if j.Status != db.JobCompileFailed || j.Attempts != 4 || !strings.Contains(deref(j.Message), "gave up after 3 attempts") {
		t.Errorf("a job whose workers died 3 times: got %d after %d attempts, %q", j.Status, j.Attempts, deref(j.Message))
	}
	var verified int
	if err := conn.Get(&verified, `SELECT count(*) FROM verified_classes`); err != nil || verified != 0 {
		t.Errorf("failed jobs verified %d classes (%v)", verified, err)
	}
	emptyDir(t, workDir)
}

// A worker killed with SIGKILL in the middle of a build: another worker takes the job when
// the lease runs out and finishes it, once.
func TestWorkerKilledMidJob(t *testing.T) {
	url := dbtest.NewURL(t)
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	seedClass(t, conn)
	scarbDir, workDir := installStandin(t), t.TempDir()
	id := submit(t, conn, standinVersion, sources("STANDIN_SLEEP=2"))

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"=1", "CHILD_DATABASE_URL="+url, "CHILD_SCARB_DIR="+scarbDir, "CHILD_WORK_DIR="+workDir,
		fmt.Sprintf("CHILD_NO_SANDBOX=%t", noSandbox(t)))
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the child has the job and its build is running, then kill it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		var status int
		var worker *string
		if err := conn.QueryRow(`SELECT status, worker FROM verification_jobs WHERE id = $1`, id).Scan(&status, &worker); err != nil {
			t.Fatal(err)
		}
		if status == db.JobProcessing && worker != nil && strings.Contains(*worker, fmt.Sprintf("/%d/", child.Process.Pid)) {
			break
		}
		if time.Now().After(deadline) {
			_ = child.Process.Kill()
			t.Fatalf("the child worker never took the job (status %d)", status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	startWorkers(t, conn, scarbDir, workDir, 1, 2*time.Second)
	j := waitFinal(t, conn, id, 30*time.Second)
	if j.Status != db.JobSuccess || j.Attempts != 2 {
		t.Errorf("after the kill: status %d, attempts %d; want 4 Success on the 2nd attempt", j.Status, j.Attempts)
	}
	if h := history(t, conn, id); h != "0>5>5>1>4" {
		t.Errorf("history %s, want 0>5>5>1>4 (claimed, killed, claimed again, finished once)", h)
	}
	var verified int
	if err := conn.Get(&verified, `SELECT count FROM list_counts WHERE name = 'verified_classes'`); err != nil || verified != 1 {
		t.Errorf("verified_classes count %d (%v), want 1", verified, err)
	}
	// The chain gave this class no ABI: the verified one now decodes its calls.
	var abiEntries int
	if err := conn.Get(&abiEntries, `SELECT jsonb_array_length(abi) FROM classes WHERE hash = $1`, db.MustFelt(fixtureClass)); err != nil || abiEntries == 0 {
		t.Errorf("the class's ABI was not filled from the verified sources: %d entries (%v)", abiEntries, err)
	}
}

// runChildWorker is the worker process TestWorkerKilledMidJob kills.
func runChildWorker() int {
	conn, err := sqlx.Open("postgres", os.Getenv("CHILD_DATABASE_URL"))
	if err != nil {
		return 1
	}
	Run(context.Background(), Config{DB: conn, Workers: 1, Lease: 2 * time.Second, Poll: 20 * time.Millisecond, Logger: quietLog(),
		Toolchains: Toolchains{Dir: os.Getenv("CHILD_SCARB_DIR")},
		Limits:     BuildLimits{Timeout: time.Minute, WorkDir: os.Getenv("CHILD_WORK_DIR"), NoSandbox: os.Getenv("CHILD_NO_SANDBOX") == "true"}})
	return 0
}

// 100 jobs over 4 workers in two "processes": each job is finished exactly once.
func TestHundredJobsFourWorkers(t *testing.T) {
	conn := dbtest.New(t)
	seedClass(t, conn)
	scarbDir, workDir := installStandin(t), t.TempDir()
	var ids []string
	for i := range 100 {
		marker := ""
		if i%10 == 3 {
			marker = "STANDIN_COMPILE_ERROR"
		}
		ids = append(ids, submit(t, conn, standinVersion, sources(marker)))
	}
	startWorkers(t, conn, scarbDir, workDir, 2, 3*time.Second)
	startWorkers(t, conn, scarbDir, workDir, 2, 3*time.Second)
	for _, id := range ids {
		waitFinal(t, conn, id, 60*time.Second)
	}
	var finishes []struct {
		Job  string `db:"job_id"`
		Ends int    `db:"ends"`
	}
	if err := conn.Select(&finishes, `SELECT j.id AS job_id, count(l.job_id) FILTER (WHERE l.status IN (2, 3, 4)) AS ends
		FROM verification_jobs j LEFT JOIN verification_job_log l ON l.job_id = j.id GROUP BY j.id`); err != nil {
		t.Fatal(err)
	}
	if len(finishes) != 100 {
		t.Fatalf("%d jobs, want 100", len(finishes))
	}
	for _, f := range finishes {
		if f.Ends != 1 {
			t.Errorf("job %s finished %d times", f.Job, f.Ends)
		}
	}
	var byStatus []string
	_ = conn.Select(&byStatus, `SELECT status || ':' || count(*) FROM verification_jobs GROUP BY status ORDER BY status`)
	if strings.Join(byStatus, " ") != "2:10 4:90" {
		t.Errorf("statuses %v, want 10 compile failures and 90 successes", byStatus)
	}
	var workers int
	_ = conn.Get(&workers, `SELECT count(DISTINCT worker) FROM verification_job_log WHERE status = 5`)
	t.Logf("jobs were taken by %d workers", workers)
	emptyDir(t, workDir)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A worker stopped in good order gives its job back to the queue at once (Submitted),
// rather than leaving it until its lease runs out.
func TestStoppedWorkerReleasesItsJob(t *testing.T) {
	conn := dbtest.New(t)
	seedClass(t, conn)
	scarbDir, workDir := installStandin(t), t.TempDir()
	id := submit(t, conn, standinVersion, sources("STANDIN_SLEEP=30"))
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		Run(ctx, Config{DB: conn, Workers: 1, Lease: time.Minute, Poll: 20 * time.Millisecond, Logger: quietLog(),
			Toolchains: Toolchains{Dir: scarbDir}, Limits: BuildLimits{Timeout: time.Minute, WorkDir: workDir, NoSandbox: noSandbox(t)}})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var status int
		if err := conn.Get(&status, `SELECT status FROM verification_jobs WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if status == db.JobProcessing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker never took the job")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	cancelled := time.Now()
	select {
	case <-stopped:
		t.Logf("stopped %s after the cancel", time.Since(cancelled).Round(time.Millisecond))
	// The job is claimed already: the stop is bounded by the build's own waits (bwrap's
	// pipes 5 s, its PID 1 gone 10 s, fd 3 drained 5 s) and the release's 5 s; it takes
	// milliseconds when nothing is stuck.
	case <-time.After(30 * time.Second):
		var stacks strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
		t.Fatalf("the worker did not stop within 30 s; goroutines:\n%s", stacks.String())
	}
	var job struct {
		Status     int     `db:"status"`
		LeaseToken *string `db:"lease_token"`
	}
	if err := conn.Get(&job, `SELECT status, lease_token FROM verification_jobs WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if job.Status != db.JobSubmitted || job.LeaseToken != nil || history(t, conn, id) != "0>5>0" {
		t.Errorf("after the stop: status %d, lease %v, history %s; want 0, none, 0>5>0", job.Status, job.LeaseToken, history(t, conn, id))
	}
	emptyDir(t, workDir)
}
