package verify

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Toolchains finds installed scarb versions: DIR/<version>/bin/scarb in the asdf layout
// (~/.asdf/installs/scarb by default), and a scarb on PATH for the version its
// `scarb --version` reports.
type Toolchains struct {
	Dir     string // the asdf-style installs directory; empty: none
	UsePATH bool   // also count a scarb found on PATH
}

// DefaultScarbDir is ~/.asdf/installs/scarb when it exists, else empty.
func DefaultScarbDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(home, ".asdf", "installs", "scarb")
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir
	}
	return ""
}

// versionPattern is what a version asked for may look like (2.8.4, 2.9.0-rc.1): it becomes
// a directory name, so nothing else is allowed.
var versionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$`)

// Installed maps each installed version to its scarb executable.
func (tc Toolchains) Installed(ctx context.Context) map[string]string {
	out := map[string]string{}
	if tc.UsePATH {
		if path, err := exec.LookPath("scarb"); err == nil {
			if v, err := scarbVersion(ctx, path); err == nil {
				out[v] = path
			}
		}
	}
	if tc.Dir != "" {
		entries, _ := os.ReadDir(tc.Dir)
		for _, e := range entries {
			bin := filepath.Join(tc.Dir, e.Name(), "bin", "scarb")
			if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 && versionPattern.MatchString(e.Name()) {
				out[e.Name()] = bin
			}
		}
	}
	return out
}

// Find returns the scarb executable of a version, or an error that names the version asked
// for and the versions installed.
func (tc Toolchains) Find(ctx context.Context, version string) (string, error) {
	installed := tc.Installed(ctx)
	if bin, ok := installed[version]; ok && versionPattern.MatchString(version) {
		return bin, nil
	}
	versions := make([]string, 0, len(installed))
	for v := range installed {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	have := "none"
	if len(versions) > 0 {
		have = strings.Join(versions, ", ")
	}
	return "", fmt.Errorf("scarb %s is not installed on this verifier (installed: %s)", clip(version, 40), have)
}

// scarbVersion runs `scarb --version` and reads the version from its first line,
// "scarb 2.8.4 (e5a4f1f0a 2024-10-03)".
func scarbVersion(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + os.TempDir()}
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	line, _, _ := bufio.NewReader(bytes.NewReader(out)).ReadLine()
	f := strings.Fields(string(line))
	if len(f) < 2 || f[0] != "scarb" || !versionPattern.MatchString(f[1]) {
		return "", fmt.Errorf("unexpected `scarb --version` output %q", clip(string(line), 80))
	}
	return f[1], nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
