package pglocal

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// serverUser is the OS user that owns the cluster's files and runs its
// programs when we are root: initdb and postgres refuse to run as root.
const serverUser = "postgres"

// owner is the OS user the server programs run as. A nil *owner means "the
// user running this process", which needs no switching and no chown.
type owner struct {
	name     string
	uid, gid uint32
	groups   []uint32
}

// serverOwner returns nil when we are not root, else the postgres user.
func serverOwner() (*owner, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		return nil, fmt.Errorf("running as root, so PostgreSQL must run as the OS user %q "+
			"(initdb refuses root), but that user does not exist: install the Debian package "+
			"postgresql (which creates it), run `useradd --system %s`, or run as a normal user: %w",
			serverUser, serverUser, err)
	}
	o := &owner{name: u.Username}
	if o.uid, err = parseID(u.Uid); err != nil {
		return nil, err
	}
	if o.gid, err = parseID(u.Gid); err != nil {
		return nil, err
	}
	gids, err := u.GroupIds()
	if err != nil {
		gids = []string{u.Gid}
	}
	for _, g := range gids {
		if id, err := parseID(g); err == nil {
			o.groups = append(o.groups, id)
		}
	}
	return o, nil
}

func parseID(s string) (uint32, error) {
	id, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("OS user %q: bad id %q: %w", serverUser, s, err)
	}
	return uint32(id), nil
}

// credential is what os/exec needs to start a program as this user.
func (o *owner) credential() *syscall.Credential {
	return &syscall.Credential{Uid: o.uid, Gid: o.gid, Groups: o.groups}
}

// chown gives dir to the owner; a no-op when we run as ourselves.
func (o *owner) chown(dir string) error {
	if o == nil {
		return nil
	}
	return os.Lchown(dir, int(o.uid), int(o.gid))
}

// chownTree gives everything under dir to the owner when dir's files are not
// its yet: a cluster made by a normal user and now started by root.
func (o *owner) chownTree(dir string) error {
	if o == nil {
		return nil
	}
	info, err := os.Stat(filepath.Join(dir, "PG_VERSION"))
	if err != nil {
		return nil // no cluster yet: initdb will make its files as the owner
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Uid == o.uid {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(o.uid), int(o.gid))
	})
}

// canEnter reports whether the owner has search (x) permission on dir.
func (o *owner) canEnter(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return true // cannot tell; let PostgreSQL report it
	}
	perm := info.Mode().Perm()
	switch {
	case st.Uid == o.uid:
		return perm&0o100 != 0
	case st.Gid == o.gid || slices.Contains(o.groups, st.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// checkCanReach makes sure the owner can walk from / down to dir. PostgreSQL
// fails with a bare "permission denied" otherwise; we say which directory and why.
func (o *owner) checkCanReach(dir string) error {
	if o == nil {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err != nil {
			return err
		}
		if !o.canEnter(info) {
			return fmt.Errorf("PostgreSQL runs as the OS user %q because this process is root, "+
				"and that user cannot enter %s (mode %v): run `chmod o+x %s`, choose a directory "+
				"it can reach, or run as a normal user", o.name, d, info.Mode().Perm(), d)
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}

// mkdirReachable creates dir and any missing parents with mode 0755, so that the
// server user can pass through the directories we made whatever the umask is.
func mkdirReachable(dir string) error {
	info, err := os.Stat(dir)
	if err == nil {
		if !info.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", dir)
		}
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := mkdirReachable(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return os.Chmod(dir, 0o755)
}
