package verify

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// A submitted project whose build does what build-time code could (testdata/scarb-hostile.sh):
// read files outside its job and the worker's environment, write outside it, list other
// jobs, connect to the API and elsewhere, fork 512 processes. In the sandbox each attempt
// fails, the job ends CompileFailed saying the build ran sandboxed, and the worker's side is
// untouched: the planted files, /tmp and /var/tmp, the listeners (no connection), no process
// left behind. Without the sandbox the same attempts succeed, which shows the test can fail.
func TestHostileBuildIsContained(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bwrap is not installed: CI must install bubblewrap (.ci/run) to test the build sandbox")
		}
		t.Skip("bwrap is not installed (apt-get install bubblewrap): the build sandbox cannot be tested here")
	}
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
			if !sandboxed {
				t.Cleanup(func() { killSleepers(t) })
			}

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
			if n := sleepers(); len(n) != 0 {
				t.Errorf("%d of the sandboxed build's processes outlived it", len(n))
			}
			emptyDir(t, workDir)
		})
	}
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

// sleepers are the pids of the processes the hostile build forks ("sleep 31.337").
func sleepers() []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if cmdline, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline"); bytes.Equal(cmdline, []byte("sleep\x0031.337\x00")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killSleepers ends the processes the unsandboxed hostile build left running.
func killSleepers(t *testing.T) {
	pids := sleepers()
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	t.Logf("ended the %d processes the build without the sandbox left behind", len(pids))
}
