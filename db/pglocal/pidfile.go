package pglocal

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// postmasterPID is what PostgreSQL writes to <datadir>/postmaster.pid while it
// runs: one value a line (see src/include/utils/pidfile.h).
type postmasterPID struct {
	pid       int
	port      int
	socketDir string
}

// readPostmasterPID returns nil, nil when there is no pid file.
func readPostmasterPID(dataDir string) (*postmasterPID, error) {
	raw, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(raw), "\n")
	line := func(n int) string { // 1-based, as pidfile.h numbers them
		if n > len(lines) {
			return ""
		}
		return strings.TrimSpace(lines[n-1])
	}
	p := &postmasterPID{socketDir: line(5)}
	p.pid, _ = strconv.Atoi(line(1))
	p.port, _ = strconv.Atoi(line(4))
	return p, nil
}

// procState says what we know of a process.
type procState int

const (
	procGone    procState = iota // no such process, or a zombie
	procRunning                  // alive, and cwd tells where it works
	procUnknown                  // alive, but we may not look (no /proc, or another user's)
)

// lookAtProcess reports whether pid is running and, if we may look, its
// working directory: a PostgreSQL server works inside its data directory.
func lookAtProcess(pid int) (state procState, cwd string) {
	if pid <= 0 {
		return procGone, ""
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return procGone, ""
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	switch {
	case err == nil:
		return procRunning, cwd
	case errors.Is(err, os.ErrNotExist) && procMounted():
		// Exited meanwhile, or a zombie nobody reaps (pid 1 in many
		// containers does not): kill(pid, 0) still succeeds on those.
		return procGone, ""
	default:
		return procUnknown, ""
	}
}

// isPostmasterOf reports whether pid is the live server of dataDir. A crashed
// server leaves its pid file behind, and later (after a reboot, in a container)
// that pid may belong to another program or be a zombie, which makes PostgreSQL
// refuse to start; so we tell them apart. It answers false only when sure:
// removing the pid file of a live server would let two servers share one data
// directory.
func isPostmasterOf(pid int, dataDir string) bool {
	state, cwd := lookAtProcess(pid)
	switch state {
	case procGone:
		return false
	case procRunning:
		return cwd == resolved(dataDir)
	default:
		return true
	}
}

// isAnyPostmaster reports whether pid may be the live server of some cluster:
// the socket lock file of a shared socket directory may be another cluster's.
func isAnyPostmaster(pid int) bool {
	state, cwd := lookAtProcess(pid)
	switch state {
	case procGone:
		return false
	case procRunning:
		_, err := os.Stat(filepath.Join(cwd, "PG_VERSION"))
		return err == nil
	default:
		return true
	}
}

func resolved(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// readLockPID returns the pid on the first line of a lock file, 0 if none.
func readLockPID(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(raw), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}

func procMounted() bool {
	_, err := os.Stat("/proc/self/cmdline")
	return err == nil
}
