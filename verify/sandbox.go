package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The build sandbox. Each `scarb build` runs under bubblewrap (bwrap, Debian's bubblewrap)
// in namespaces of its own: no network (only a loopback of its own), its own PID, IPC, UTS
// and cgroup namespaces, and a file system made of /usr, /bin, /lib* and a few files of
// /etc read-only, the toolchain's directory read-only, the sources read-only at /sources,
// and one writable tmpfs of a fixed size at /job (the project, HOME, caches and /tmp). The
// host's file system, the worker's environment and other jobs are invisible. The build
// runs as an unprivileged uid with no capabilities and no_new_privs, under rlimits on its
// processes, address space and core dumps, and is killed whole (with its PID namespace)
// on timeout or when the worker dies.
//
// As root, bwrap sets up the namespaces with root's rights (no user namespace is needed)
// and setpriv drops to sandboxUID before anything of the job runs. As any other user, bwrap
// makes a user namespace (unprivileged user namespaces must be allowed), in which the build
// runs as sandboxUID, mapped to the worker's own user, and cannot make further ones.

const (
	// sandboxUID is the uid (and gid) builds run as: nobody.
	sandboxUID = 65534
	// DefaultProcesses is RLIMIT_NPROC of a sandboxed build: its processes and threads
	// (as root, those of sandboxUID on the host).
	DefaultProcesses = 256
	// DefaultDiskMiB is the size of a sandboxed build's only writable file system.
	DefaultDiskMiB = 1024
)

// sandboxTools are the programs the sandbox is made with.
type sandboxTools struct {
	bwrap   string
	prlimit string // run inside: must be under /usr, /bin or /sbin
	setpriv string // as root only; idem
	asRoot  bool
}

// findSandboxTools finds bwrap on PATH and util-linux's prlimit (and setpriv, as root)
// where the sandbox can see them.
func findSandboxTools() (sandboxTools, error) {
	t := sandboxTools{asRoot: os.Geteuid() == 0}
	var err error
	if t.bwrap, err = exec.LookPath("bwrap"); err != nil {
		return t, errors.New("bwrap is not installed: class verification builds run in a bubblewrap sandbox; " +
			"install it (Debian: apt-get install bubblewrap) or start with --verify-sandbox=off to build without isolation (unsafe)")
	}
	find := func(name string) (string, error) {
		for _, dir := range []string{"/usr/bin", "/usr/sbin", "/bin", "/sbin"} {
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s (util-linux) is not installed in /usr/bin: the build sandbox needs it", name)
	}
	if t.prlimit, err = find("prlimit"); err != nil {
		return t, err
	}
	if t.asRoot {
		if t.setpriv, err = find("setpriv"); err != nil {
			return t, err
		}
	}
	return t, nil
}

// sandboxSpec is one sandboxed run.
type sandboxSpec struct {
	sources   string // host directory shown read-only at /sources; empty: none
	toolchain string // host directory shown read-only at /toolchain; empty: none
	etc       string // host directory holding passwd, group and hosts for /etc; empty: none
	diskBytes int64  // size of the tmpfs at /job
	processes int    // RLIMIT_NPROC
	memBytes  int64  // RLIMIT_AS; 0: none
	infoFD    bool   // bwrap says on fd 4 which process is the sandbox's PID 1
	argv      []string
}

// args are bwrap's arguments for spec.
func (t sandboxTools) args(spec sandboxSpec) []string {
	var a []string
	if spec.infoFD {
		a = append(a, "--info-fd", "4")
	}
	a = append(a,
		"--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--hostname", "starkgraph-build",
		"--die-with-parent", "--new-session",
	)
	if !t.asRoot {
		uid := strconv.Itoa(sandboxUID)
		a = append(a, "--unshare-user", "--uid", uid, "--gid", uid, "--disable-userns")
	}
	a = append(a, "--ro-bind", "/usr", "/usr")
	// /bin, /lib... are links into /usr on a merged-/usr system, directories elsewhere.
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		st, err := os.Lstat(d)
		switch {
		case err != nil:
		case st.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case st.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	// What the dynamic linker and Debian's alternatives (awk, ...) need of /etc.
	a = append(a, "--perms", "0755", "--dir", "/etc")
	for _, f := range []string{"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"} {
		a = append(a, "--ro-bind-try", f, f)
	}
	if spec.etc != "" {
		for _, f := range []string{"passwd", "group", "hosts"} {
			a = append(a, "--ro-bind", filepath.Join(spec.etc, f), "/etc/"+f)
		}
	}
	a = append(a,
		"--proc", "/proc",
		"--dev", "/dev", "--remount-ro", "/dev",
		"--perms", "0777", "--size", strconv.FormatInt(spec.diskBytes, 10), "--tmpfs", "/job",
		"--symlink", "/job/tmp", "/tmp",
	)
	if spec.sources != "" {
		a = append(a, "--ro-bind", spec.sources, "/sources")
	}
	if spec.toolchain != "" {
		a = append(a, "--ro-bind", spec.toolchain, "/toolchain")
	}
	a = append(a, "--remount-ro", "/", "--chdir", "/job", "--")
	if t.asRoot {
		uid := strconv.Itoa(sandboxUID)
		a = append(a, t.setpriv, "--reuid", uid, "--regid", uid, "--clear-groups",
			"--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--")
	}
	a = append(a, t.prlimit, "--nproc="+strconv.Itoa(spec.processes), "--core=0")
	if spec.memBytes > 0 {
		a = append(a, "--as="+strconv.FormatInt(spec.memBytes, 10))
	}
	a = append(a, "--")
	return append(a, spec.argv...)
}

// sandboxWorks holds the bwrap whose trial run succeeded in this process: the command
// checks the sandbox before it starts anything, and Run, which checks it again for code
// that calls it directly, then has nothing to run. A failed trial is not remembered.
var sandboxWorks struct {
	sync.Mutex
	bwrap string
}

// sandboxTrials counts the trial runs of CheckSandbox (for the tests).
var sandboxTrials atomic.Int64

// CheckSandbox says whether builds can run in the sandbox here: bwrap is installed and a
// trial run in the sandbox works (namespaces allowed, the uid drop, the limits). Workers
// refuse to start without it unless the operator turned the sandbox off. The trial runs
// once per process: after one has worked, CheckSandbox only looks for the tools again.
func CheckSandbox(ctx context.Context) error {
	t, err := findSandboxTools()
	if err != nil {
		return err
	}
	sandboxWorks.Lock()
	defer sandboxWorks.Unlock()
	if sandboxWorks.bwrap == t.bwrap {
		return nil
	}
	if err := trySandbox(ctx, t); err != nil {
		return err
	}
	sandboxWorks.bwrap = t.bwrap
	return nil
}

// trySandbox runs a trial in the sandbox: the uid drop and the read-only file system.
func trySandbox(ctx context.Context, t sandboxTools) error {
	sandboxTrials.Add(1)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.bwrap, t.args(sandboxSpec{
		diskBytes: 1 << 20, processes: 16, memBytes: 1 << 30,
		argv: []string{"/bin/sh", "-c", `[ "$(id -u)" = 65534 ] && ! touch /usr/.sandbox-check 2>/dev/null && echo sandbox ok`},
	})...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "sandbox ok" {
		hint := ""
		if !t.asRoot {
			hint = " (as a user other than root, bwrap needs unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0)"
		}
		return fmt.Errorf("the class verification build sandbox (%s) does not work here%s: %v: %s; "+
			"start with --verify-sandbox=off to build without isolation (unsafe)", t.bwrap, hint, err, clip(strings.TrimSpace(string(out)), 300))
	}
	return nil
}

// sandboxScript runs inside the sandbox as its uid: it copies the sources into /job,
// builds, and hands the class back on fd 3, which the build itself never gets (nor fd 4,
// where bwrap says which process is the sandbox's PID 1). On fd 3 it writes "started",
// then after a build that succeeded either "class" and the class file, or "missing" and
// the names in target/dev. $1 is the project directory under the sources, $2 the class
// file's name, $3 scarb.
const sandboxScript = `
echo started >&3
mkdir -p /job/src /job/home /job/cache /job/tmp && cp -R /sources/. /job/src/ || {
	echo "the sources do not fit in the build's disk" >&2; exit 125; }
cd "/job/src/$1" || exit 125
"$3" --offline build 3>&- 4>&-
status=$?
[ "$status" -eq 0 ] || exit "$status"
if [ -f "target/dev/$2" ]; then
	echo class >&3
	exec cat "target/dev/$2" >&3
fi
echo missing >&3
ls target/dev >&3 2>/dev/null
exit 0
`

// buildSandboxed runs the build of the project dir (relative to src) in the sandbox and
// returns the class.
func buildSandboxed(ctx, buildCtx context.Context, root, src, project, name, scarb string, lim BuildLimits) (class []byte, output string, err error) {
	t, err := findSandboxTools()
	if err != nil {
		return nil, "", err
	}
	// The toolchain, shown at /toolchain: the real directory scarb is in, or the one above
	// it if that is a bin/ (the asdf layout, and scarb's own archives).
	real, err := filepath.EvalSymlinks(scarb)
	if err != nil {
		return nil, "", fmt.Errorf("toolchain %s: %w", scarb, err)
	}
	toolchain, inside := filepath.Dir(real), "/toolchain/"+filepath.Base(real)
	if filepath.Base(toolchain) == "bin" {
		toolchain, inside = filepath.Dir(toolchain), "/toolchain/bin/"+filepath.Base(real)
	}
	if toolchain == "/" || toolchain == "/usr" {
		return nil, "", fmt.Errorf("toolchain %s: refusing to show all of %s to the sandbox; install scarb in a directory of its own (--scarb-dir)", real, toolchain)
	}
	// The sources are read by the sandbox's uid, whatever the worker's umask.
	if err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	}); err != nil {
		return nil, "", err
	}
	etc := filepath.Join(root, "etc")
	if err := writeSandboxEtc(etc); err != nil {
		return nil, "", err
	}
	processes, disk := lim.Processes, lim.DiskMiB
	if processes <= 0 {
		processes = DefaultProcesses
	}
	if disk <= 0 {
		disk = DefaultDiskMiB
	}
	spec := sandboxSpec{
		sources: src, toolchain: toolchain, etc: etc,
		diskBytes: int64(disk) << 20, processes: processes, memBytes: int64(lim.MemoryMiB) << 20, infoFD: true,
		argv: []string{"/bin/sh", "-c", sandboxScript, "sh", project, name, inside},
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, "", err
	}
	defer pr.Close()
	infoR, infoW, err := os.Pipe()
	if err != nil {
		pw.Close()
		return nil, "", err
	}
	defer infoR.Close()
	cmd := exec.CommandContext(buildCtx, t.bwrap, t.args(spec)...)
	cmd.Dir = "/"
	cmd.Env = sandboxedEnv(filepath.Dir(inside))
	cmd.ExtraFiles = []*os.File{pw, infoW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Killing bwrap kills the build: its PID 1 dies with it (--die-with-parent), and with
	// PID 1 the whole namespace.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out := &boundedOutput{}
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Start()
	pw.Close()
	infoW.Close()
	if err != nil {
		return nil, "", fmt.Errorf("starting the build sandbox: %w", err)
	}
	info := make(chan int, 1)
	go func() {
		var i struct {
			ChildPid int `json:"child-pid"`
		}
		_ = json.NewDecoder(io.LimitReader(infoR, 4096)).Decode(&i)
		info <- i.ChildPid
	}()
	back := make(chan []byte, 1)
	go func() {
		// At most the class and a header; the rest is drained so the writer never blocks.
		b, _ := io.ReadAll(io.LimitReader(pr, maxClassFile+64))
		_, _ = io.Copy(io.Discard, pr)
		back <- b
	}()
	runErr := cmd.Wait()
	// bwrap exits with the build's status while its PID 1 still reaps; the build's
	// processes are all gone once PID 1 is.
	select {
	case pid1 := <-info:
		waitGone(pid1, 10*time.Second)
	case <-time.After(time.Second):
	}
	var handed []byte
	select {
	case handed = <-back:
	case <-time.After(5 * time.Second): // something inside still holds fd 3 open
		pr.Close()
		handed = <-back
	}
	output = out.String()
	started, rest, _ := bytes.Cut(handed, []byte("\n"))
	limits := fmt.Sprintf("no network, no files outside the project, at most %d processes and %d MiB of disk", processes, disk)
	switch {
	case ctx.Err() != nil:
		return nil, output, ctx.Err()
	case errors.Is(buildCtx.Err(), context.DeadlineExceeded):
		return nil, output, &compileFailure{msg: fmt.Sprintf("scarb build did not finish within %s", lim.Timeout), output: output}
	case string(started) != "started":
		// The sandbox itself failed (bwrap's own error is in the output): the verifier's
		// problem, not the sources'.
		return nil, output, fmt.Errorf("the build sandbox did not start: %s: %s", exitText(runErr), clip(strings.TrimSpace(output), 500))
	case runErr != nil:
		return nil, output, &compileFailure{msg: fmt.Sprintf("scarb build failed in the sandbox (%s): %s", limits, sandboxExitText(runErr)), output: output}
	}
	kind, body, _ := bytes.Cut(rest, []byte("\n"))
	switch string(kind) {
	case "class":
		if len(body) > maxClassFile {
			return nil, output, &compileFailure{output: output, msg: fmt.Sprintf("target/dev/%s is larger than %d bytes", clip(name, 200), maxClassFile)}
		}
		return body, output, nil
	case "missing":
		return nil, output, &compileFailure{output: output, msg: missingClass(name, classNames(strings.Fields(string(body))))}
	}
	return nil, output, &compileFailure{output: output, msg: "the build sandbox handed back nothing after scarb build succeeded"}
}

// sandboxExitText is exitText for bwrap, which exits 128+N when the build was killed by
// signal N.
func sandboxExitText(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() > 128 && exit.ExitCode() < 128+65 {
		return "killed by " + syscall.Signal(exit.ExitCode()-128).String() + " (the memory cap may be too low)"
	}
	return exitText(err)
}

// writeSandboxEtc writes the sandbox's /etc/passwd, group and hosts.
func writeSandboxEtc(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	uid := strconv.Itoa(sandboxUID)
	files := map[string]string{
		"passwd": "build:x:" + uid + ":" + uid + ":build:/job/home:/bin/sh\n",
		"group":  "build:x:" + uid + ":\n",
		"hosts":  "127.0.0.1 localhost starkgraph-build\n::1 localhost\n",
	}
	for f, content := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sandboxedEnv is the build's whole environment inside the sandbox.
func sandboxedEnv(scarbBin string) []string {
	return []string{
		"HOME=/job/home",
		"XDG_CACHE_HOME=/job/cache",
		"XDG_CONFIG_HOME=/job/home/.config",
		"XDG_DATA_HOME=/job/home/.local/share",
		"SCARB_CACHE=/job/cache/scarb",
		"TMPDIR=/tmp",
		"PATH=" + scarbBin + ":/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"NO_COLOR=1",
	}
}

// waitGone waits until process pid has exited (gone or a zombie), for at most d.
func waitGone(pid int, d time.Duration) {
	if pid <= 0 {
		return
	}
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		// pid (comm) S ...: the state follows the last ')'.
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
			return
		}
	}
}
