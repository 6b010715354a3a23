package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/starkgraph/starkgraph/db"
)

// BuildLimits bound one compilation.
type BuildLimits struct {
	Timeout   time.Duration // wall time of `scarb build`
	MemoryMiB int           // address-space cap of the compiler (RLIMIT_AS); 0: none
	Processes int           // processes and threads of a sandboxed build (RLIMIT_NPROC); 0: DefaultProcesses
	DiskMiB   int           // size of a sandboxed build's writable file system; 0: DefaultDiskMiB
	WorkDir   string        // where job directories are made; empty: the system's temp dir
	// NoSandbox builds as the worker's own user in the host's file system and network
	// (--verify-sandbox=off); by default every build runs in the sandbox (sandbox.go).
	NoSandbox bool
}

// maxOutput is how much of the compiler's output a job keeps: its start and its end, where
// the errors are.
const (
	maxOutputHead = 4 << 10
	maxOutputTail = 12 << 10
	maxClassFile  = 64 << 20
)

// compileFailure is a build that did not produce the class: the job ends CompileFailed
// with this message and the compiler's output.
type compileFailure struct {
	msg    string
	output string
}

func (e *compileFailure) Error() string { return e.msg }

// build writes the job's files into a fresh directory, runs `scarb --offline build` in the
// project directory with its own environment (HOME and caches inside the job, nothing
// inherited), a timeout and a memory cap, in the sandbox unless lim.NoSandbox, and returns
// the compiled contract class and the compiler's output. The directory is removed whatever
// happens. A *compileFailure says the sources did not build; other errors are the
// verifier's own.
func build(ctx context.Context, job *db.ClaimedJob, scarb string, lim BuildLimits) (class []byte, output string, err error) {
	var files map[string]string
	if err := json.Unmarshal(job.Files, &files); err != nil || len(files) == 0 {
		return nil, "", &compileFailure{msg: "the job's files are not an object of path -> source"}
	}
	root, err := os.MkdirTemp(lim.WorkDir, "starkgraph-verify-")
	if err != nil {
		return nil, "", fmt.Errorf("job directory: %w", err)
	}
	defer os.RemoveAll(root)

	src := filepath.Join(root, "src")
	for p, content := range files {
		if err := writeSource(src, p, content); err != nil {
			return nil, "", &compileFailure{msg: err.Error()}
		}
	}
	projectDir := "."
	if dir := strings.Trim(job.ProjectDirPath, "/"); dir != "" && dir != "." {
		if !SafeRelativePath(dir) {
			return nil, "", &compileFailure{msg: fmt.Sprintf("project_dir_path %q leaves the project", clip(dir, 80))}
		}
		projectDir = path.Clean(dir)
	}
	project := filepath.Join(src, filepath.FromSlash(projectDir))
	if _, err := os.Stat(filepath.Join(project, "Scarb.toml")); err != nil {
		return nil, "", &compileFailure{msg: "no Scarb.toml in project_dir_path " + strconv.Quote(job.ProjectDirPath)}
	}
	name := job.PackageName + "_" + job.Name + ".contract_class.json"

	buildCtx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	if !lim.NoSandbox {
		return buildSandboxed(ctx, buildCtx, root, src, projectDir, name, scarb, lim)
	}
	// ulimit -v caps the compiler's memory; sh execs scarb, so the cap and the process
	// group apply to scarb itself.
	limit := "unlimited"
	if lim.MemoryMiB > 0 {
		limit = strconv.Itoa(lim.MemoryMiB * 1024)
	}
	cmd := exec.CommandContext(buildCtx, "/bin/sh", "-c", `ulimit -v "$1" || exit 125; shift; exec "$@"`,
		"sh", limit, scarb, "--offline", "build")
	cmd.Dir = project
	cmd.Env = sandboxEnv(root, scarb)
	// Its own process group, killed whole on timeout; and killed if this worker dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out := &boundedOutput{}
	cmd.Stdout, cmd.Stderr = out, out
	runErr := cmd.Run()
	output = out.String()
	switch {
	case ctx.Err() != nil: // the worker is stopping or lost its lease
		return nil, output, ctx.Err()
	case errors.Is(buildCtx.Err(), context.DeadlineExceeded):
		return nil, output, &compileFailure{msg: fmt.Sprintf("scarb build did not finish within %s", lim.Timeout), output: output}
	case runErr != nil:
		return nil, output, &compileFailure{msg: "scarb build failed: " + exitText(runErr), output: output}
	}

	target := filepath.Join(project, "target", "dev")
	class, err = readBounded(filepath.Join(target, name), maxClassFile)
	if err != nil {
		return nil, output, &compileFailure{output: output, msg: missingClass(name, builtClasses(target))}
	}
	return class, output, nil
}

// missingClass says that the class file asked for was not built, and what was.
func missingClass(name, built string) string {
	return fmt.Sprintf("scarb built no target/dev/%s (built: %s); name must be the contract's module name and package_name the package's name",
		clip(name, 200), built)
}

// writeSource writes one submitted file below dir, refusing any path that would leave it.
func writeSource(dir, p, content string) error {
	if !SafeRelativePath(p) {
		return fmt.Errorf("file path %q is not a relative path inside the project", clip(p, 80))
	}
	full := filepath.Join(dir, filepath.FromSlash(path.Clean(p)))
	if !strings.HasPrefix(full, dir+string(filepath.Separator)) {
		return fmt.Errorf("file path %q leaves the project", clip(p, 80))
	}
	// Readable by the sandbox's uid; the job's directory itself stays 0700.
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fmt.Errorf("file path %q: %v", clip(p, 80), errors.Unwrap(err))
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("file path %q: given twice or clashes with a directory", clip(p, 80))
	}
	defer f.Close()
	_, err = io.WriteString(f, content)
	return err
}

// SafeRelativePath accepts a slash-separated path that stays inside the directory it is
// written to: not empty, not absolute, no "..", no backslash, no NUL.
func SafeRelativePath(p string) bool {
	if p == "" || strings.ContainsAny(p, "\x00\\") || path.IsAbs(p) {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return false
		}
	}
	clean := path.Clean(p)
	return clean != "." && clean != ""
}

// sandboxEnv is the compiler's whole environment: HOME, caches and config inside the job
// directory, and a PATH of the system's directories and the compiler's own. Nothing is
// inherited from the worker, so no secret (DATABASE_URL, keys) reaches the sources' build.
func sandboxEnv(root, scarb string) []string {
	home := filepath.Join(root, "home")
	cache := filepath.Join(root, "cache")
	return []string{
		"HOME=" + home,
		"XDG_CACHE_HOME=" + cache,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"SCARB_CACHE=" + filepath.Join(cache, "scarb"),
		"TMPDIR=" + root,
		"PATH=" + filepath.Dir(scarb) + ":/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"NO_COLOR=1",
	}
}

func exitText(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by " + ws.Signal().String() + " (the memory cap may be too low)"
		}
		return fmt.Sprintf("exit status %d", exit.ExitCode())
	}
	return "could not start the compiler"
}

func builtClasses(dir string) string {
	entries, _ := os.ReadDir(dir)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	return classNames(files)
}

// classNames lists the contract classes among file names.
func classNames(files []string) string {
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, ".contract_class.json") {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "no contract classes"
	}
	if len(names) > 10 {
		names = append(names[:10], "...")
	}
	return strings.Join(names, ", ")
}

func readBounded(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", filepath.Base(name), limit)
	}
	return b, nil
}

// boundedOutput keeps the start and the end of what a process writes.
type boundedOutput struct {
	head, tail []byte
	dropped    int
}

func (b *boundedOutput) Write(p []byte) (int, error) {
	n := len(p)
	if room := maxOutputHead - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	b.tail = append(b.tail, p...)
	if over := len(b.tail) - maxOutputTail; over > 0 {
		b.dropped += over
		b.tail = append(b.tail[:0], b.tail[over:]...)
	}
	return n, nil
}

func (b *boundedOutput) String() string {
	if b.dropped == 0 {
		return string(b.head) + string(b.tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes left out ...]\n%s", b.head, b.dropped, b.tail)
}
