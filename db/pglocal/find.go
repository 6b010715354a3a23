package pglocal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// ErrNotFound says that no PostgreSQL server programs are installed. Callers
// that can live without a database (tests outside CI) check for it with errors.Is.
var ErrNotFound = errors.New("PostgreSQL server not found: install it with " +
	"`apt-get install postgresql` (Debian/Ubuntu) or put initdb and pg_ctl on PATH")

// serverPrograms are the programs a cluster needs, all from one installation.
var serverPrograms = []string{"initdb", "pg_ctl", "postgres"}

// debianInstallGlob is where Debian and Ubuntu put each installed major version;
// those directories are not on PATH.
var debianInstallGlob = "/usr/lib/postgresql/*/bin"

// Find returns the directory that holds initdb, pg_ctl and postgres: the one
// on PATH if there is one, otherwise the newest /usr/lib/postgresql/*/bin.
func Find() (binDir string, err error) {
	if initdb, err := exec.LookPath("initdb"); err == nil {
		if dir := filepath.Dir(initdb); hasServerPrograms(dir) {
			return dir, nil
		}
		// initdb may be a lone symlink on PATH; its real home has the rest.
		if real, err := filepath.EvalSymlinks(initdb); err == nil {
			if dir := filepath.Dir(real); hasServerPrograms(dir) {
				return dir, nil
			}
		}
	}
	dirs, _ := filepath.Glob(debianInstallGlob)
	sort.Slice(dirs, func(i, j int) bool { // newest major version first
		return majorOf(dirs[i]) > majorOf(dirs[j])
	})
	for _, dir := range dirs {
		if hasServerPrograms(dir) {
			return dir, nil
		}
	}
	return "", ErrNotFound
}

func hasServerPrograms(dir string) bool {
	for _, name := range serverPrograms {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// majorOf reads the version out of /usr/lib/postgresql/<major>/bin; 0 if none.
func majorOf(binDir string) float64 {
	v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	if err != nil {
		return 0
	}
	return v
}

// programPath finds a PostgreSQL program: in binDir, where the server programs are, or,
// for client programs an installation may keep apart from them (pg_basebackup when only
// initdb, pg_ctl and postgres were put on PATH), in the Debian directories, newest first,
// then on PATH. Not found, it is binDir's path, for the error to name.
func programPath(binDir, program string) string {
	inBin := filepath.Join(binDir, program)
	if _, err := os.Stat(inBin); err == nil {
		return inBin
	}
	dirs, _ := filepath.Glob(debianInstallGlob)
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, program)); err == nil {
			return filepath.Join(dir, program)
		}
	}
	if path, err := exec.LookPath(program); err == nil {
		return path
	}
	return inBin
}

// Program returns the path of a PostgreSQL client program (pg_dump, psql) of the
// installation Find finds, so that it matches the server's version.
func Program(name string) (string, error) {
	binDir, err := Find()
	if err != nil {
		return "", err
	}
	path := programPath(binDir, name)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s of the PostgreSQL in %s: %w", name, binDir, err)
	}
	return path, nil
}
