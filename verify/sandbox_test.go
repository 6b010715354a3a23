package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// A submitted project whose build does what build-time code could (testdata/scarb-hostile.sh):
// read files outside its job and the worker's environment, write outside it, list other
// jobs, connect to the API and elsewhere, fork 512 processes. In the sandbox each attempt
// fails, the job ends CompileFailed saying the build ran sandboxed, and the worker's side is
// untouched: the planted files, /tmp and /var/tmp, the listeners (no connection). Without the sandbox the same attempts succeed, which shows the test can fail.
func TestHostileBuildIsContained(t *testing.T) {
	requireBwrap(t)
	conn := dbtest.New(t)
	seedClass(t, conn)
	scarbDir := installHostile(t)
	// A process of the worker's user with a secret in its environment, as the server's
	// DATABASE_URL is.
	server := exec.Command("sleep", "120")
	server.Env = []string{"STARKGRAPH_TEST_SECRET=worker-secret"}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })

	for _, sandboxed := range []bool{true, false} {
		t.Run(map[bool]string{true: "sandbox", false: "no sandbox"}[sandboxed], func(t *testing.T) {
			plantDir := t.TempDir()
			planted := filepath.Join(plantDir, "secret.txt")
			if err := os.WriteFile(planted, []byte("planted-secret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			api, apiConns := listen(t, "127.0.0.1:0")
			outside, outsideConns := "", &atomic.Int64{}
			if ip := hostAddress(); ip != "" {
				outside, outsideConns = listen(t, net.JoinHostPort(ip, "0"))
			}
			nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
			hostTmp := []string{"/tmp/starkgraph-hostile-" + nonce, "/var/tmp/starkgraph-hostile-" + nonce}
			t.Cleanup(func() {
				for _, f := range hostTmp {
					os.Remove(f)
				}
			})
			workDir := t.TempDir()
			marker := fmt.Sprintf("STANDIN_HOSTILE planted=%s plantdir=%s jobs=%s pid=%d api=%s outside=%s nonce=%s",
				planted, plantDir, workDir, server.Process.Pid, api, outside, nonce)
			id := submit(t, conn, standinVersion, sources(marker))
			startWorkersWith(t, conn, scarbDir, 1, 5*time.Second,
				BuildLimits{Timeout: 2 * time.Minute, MemoryMiB: 2048, WorkDir: workDir, NoSandbox: !sandboxed})
			j := waitFinal(t, conn, id, 3*time.Minute)
			out := deref(j.CompilerOutput)
			t.Logf("%s\n%s", deref(j.Message), out)

			attempts := map[string]string{}
			for _, m := range regexp.MustCompile(`(?m)^ATTEMPT ([a-z0-9-]+): (ok|failed)`).FindAllStringSubmatch(out, -1) {
				attempts[m[1]] = m[2]
			}
			if j.Status != db.JobCompileFailed || len(attempts) != 12 {
				t.Fatalf("want 2 CompileFailed with 12 attempts reported, got %d with %d: %q", j.Status, len(attempts), deref(j.Message))
			}
			// Seen from the worker's side.
			content, _ := os.ReadFile(planted)
			entries, _ := os.ReadDir(plantDir)
			wrote := map[string]bool{"plantdir": len(entries) != 1}
			for _, f := range hostTmp {
				_, err := os.Stat(f)
				wrote[f] = err == nil
			}

			if !sandboxed {
				// The attempts the test can see succeed: so the sandboxed run below can fail.
				for _, name := range []string{"read-planted", "read-environment", "list-jobs", "write-tmp", "write-var-tmp",
					"write-planted-dir", "connect-api", "fork-512"} {
					if attempts[name] != "ok" {
						t.Errorf("without the sandbox, %s: %s; want ok", name, attempts[name])
					}
				}
				if outside != "" && attempts["connect-outside"] != "ok" {
					t.Errorf("without the sandbox, connect-outside: %s; want ok", attempts["connect-outside"])
				}
				if !wrote["plantdir"] || !wrote[hostTmp[0]] || !wrote[hostTmp[1]] || apiConns.Load() == 0 {
					t.Errorf("without the sandbox the build should have written outside its job and connected: wrote %v, %d connections",
						wrote, apiConns.Load())
				}
				if !strings.Contains(out, "planted-secret") || !strings.Contains(out, "worker-secret") {
					t.Errorf("without the sandbox the build should have read the planted file and the worker's environment")
				}
				return
			}

			for name, got := range attempts {
				// /tmp is the build's own: writing there works, and the host's /tmp is untouched (below).
				if name != "write-tmp" && got != "failed" {
					t.Errorf("in the sandbox, %s: %s; want failed", name, got)
				}
			}
			if string(content) != "planted-secret\n" || wrote["plantdir"] || wrote[hostTmp[0]] || wrote[hostTmp[1]] {
				t.Errorf("the sandboxed build changed the worker's files: planted %q, wrote %v", content, wrote)
			}
			if n := apiConns.Load() + outsideConns.Load(); n != 0 {
				t.Errorf("the sandboxed build connected %d times to the worker's listeners", n)
			}
			for _, leak := range []string{"planted-secret", "worker-secret"} {
				if strings.Contains(out, leak) {
					t.Errorf("the sandboxed build's output holds %q", leak)
				}
			}
			if msg := deref(j.Message); !strings.Contains(msg, "in the sandbox (no network, no files outside the project, at most 256 processes") {
				t.Errorf("message %q does not say the build ran in the sandbox and its limits", msg)
			}
			emptyDir(t, workDir)
		})
	}
}

// requireBwrap skips a test of the sandbox where bwrap is not installed, outside CI.
func requireBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bwrap is not installed: CI must install bubblewrap (.ci/run) to test the build sandbox")
		}
		t.Skip("bwrap is not installed (apt-get install bubblewrap): the build sandbox cannot be tested here")
	}
}

// A build in the sandbox, without the queue: the class comes back whole; a class not built
// is named with what was; a build past its time is killed with every process it started.
// As root the sandbox drops to uid 65534 with setpriv; run as another user (the test binary
// under setpriv) it goes through a user namespace instead.
func TestSandboxedBuild(t *testing.T) {
	requireBwrap(t)
	scarb := filepath.Join(installStandin(t), standinVersion, "bin", "scarb")
	lim := BuildLimits{Timeout: time.Minute, MemoryMiB: 2048, WorkDir: t.TempDir()}
	job := func(name string, files map[string]string) *db.ClaimedJob {
		raw, _ := json.Marshal(files)
		return &db.ClaimedJob{Name: name, PackageName: "argent", ProjectDirPath: ".", Files: raw}
	}
	ctx := context.Background()

	class, out, err := build(ctx, job("ArgentAccount", sources("")), scarb, lim)
	if err != nil || !bytes.Equal(class, readFixtureClass(t)) {
		t.Fatalf("build: %d bytes, err %v\n%s", len(class), err, out)
	}
	if !strings.Contains(out, "Compiling argent v0.1.0 (/job/src/Scarb.toml)") {
		t.Errorf("the build did not run in the sandbox's /job:\n%s", out)
	}

	_, _, err = build(ctx, job("Other", sources("")), scarb, lim)
	var cf *compileFailure
	if !errors.As(err, &cf) || !strings.Contains(cf.msg, "no target/dev/argent_Other.contract_class.json (built: argent_ArgentAccount.contract_class.json)") {
		t.Errorf("a class not built: %v", err)
	}

	lim.Timeout = 2 * time.Second
	began := time.Now()
	_, _, err = build(ctx, job("ArgentAccount", sources("STANDIN_SLEEP=47")), scarb, lim)
	if !errors.As(err, &cf) || !strings.Contains(cf.msg, "did not finish within 2s") || time.Since(began) > 15*time.Second {
		t.Errorf("a build past its time: %v after %s", err, time.Since(began))
	}
	for _, pid := range processes("sleep\x0047\x00") {
		t.Errorf("process %d of the build outlived its timeout", pid)
	}
	emptyDir(t, lim.WorkDir)
}

// installHostile installs testdata/scarb-hostile.sh as the scarb of standinVersion.
func installHostile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, standinVersion, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "scarb-hostile.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "scarb"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// listen accepts connections on addr until the test ends and counts them.
func listen(t *testing.T, addr string) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return l.Addr().String(), &n
}

// hostAddress is an IPv4 address of this machine other than loopback, or "".
func hostAddress() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

// processes are the pids of the processes whose command line is cmdline.
func processes(cmdline string) []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline"); string(b) == cmdline {
			pids = append(pids, pid)
		}
	}
	return pids
}
