// Package buildinfo names the running starkgraph: its release version and the VCS revision
// it was built from.
//
// The version is the release this source tree is (CHANGELOG.md); a build may override it:
//
//	go build -ldflags "-X github.com/starkgraph/starkgraph/internal/buildinfo.version=0.1.1" .
//
// The revision, its commit time and whether the work tree had uncommitted changes come from
// the build information Go stamps into binaries built inside a git checkout (go build, go
// install; not go run or go test). A build made without .git (a Docker context that leaves it
// out) may set the revision the same way, with ...buildinfo.revision=<sha>.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// DefaultVersion is the release of this source tree.
const DefaultVersion = "0.1.0"

// version and revision may be set with -ldflags -X (see the package comment).
var (
	version  = DefaultVersion
	revision = ""
)

// Info is what a binary knows about its build.
type Info struct {
	Version   string    // the release, e.g. 0.1.0
	Revision  string    // the full VCS revision; empty when unknown
	Time      time.Time // the revision's commit time; zero when unknown
	Modified  bool      // the work tree had uncommitted changes
	GoVersion string    // the Go toolchain, e.g. go1.26.8
}

var read = sync.OnceValue(func() Info {
	info := Info{Version: version, Revision: revision, GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	fromVCS := info.Revision == ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && fromVCS:
			info.Revision = s.Value
		case s.Key == "vcs.time" && fromVCS:
			info.Time, _ = time.Parse(time.RFC3339, s.Value)
		case s.Key == "vcs.modified" && fromVCS:
			info.Modified = s.Value == "true"
		}
	}
	return info
})

// Get is the build's information.
func Get() Info { return read() }

// Version is the release version, e.g. 0.1.0.
func Version() string { return read().Version }

// Revision is the VCS revision the binary was built from ("unknown" when the build did not
// record one, as under go run and go test).
func Revision() string {
	if r := read().Revision; r != "" {
		return r
	}
	return "unknown"
}

// ShortRevision is Revision's first 7 characters.
func ShortRevision() string {
	r := Revision()
	if len(r) > 7 && r != "unknown" {
		return r[:7]
	}
	return r
}

// String is the line `starkgraph version` prints, e.g.
// "starkgraph 0.1.0 (rev abc1234, 2026-11-29, modified)".
func String() string { return read().String() }

// String formats the information as `starkgraph version` prints it.
func (i Info) String() string {
	rev := "unknown"
	if i.Revision != "" {
		rev = i.Revision
		if len(rev) > 7 {
			rev = rev[:7]
		}
	}
	parts := []string{"rev " + rev}
	if !i.Time.IsZero() {
		parts = append(parts, i.Time.UTC().Format("2006-01-02"))
	}
	if i.Modified {
		parts = append(parts, "modified")
	}
	return "starkgraph " + i.Version + " (" + strings.Join(parts, ", ") + ")"
}
