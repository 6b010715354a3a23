package buildinfo

import (
	"regexp"
	"testing"
	"time"
)

func TestStringNamesVersionRevisionDateAndModified(t *testing.T) {
	for _, c := range []struct {
		info Info
		want string
	}{
		{Info{Version: "0.1.0", Revision: "abc1234def5678", Time: time.Date(2026, 11, 29, 5, 0, 0, 0, time.UTC), Modified: true},
			"starkgraph 0.1.0 (rev abc1234, 2026-11-29, modified)"},
		{Info{Version: "0.1.0", Revision: "abc1234def5678", Time: time.Date(2026, 11, 29, 5, 0, 0, 0, time.UTC)},
			"starkgraph 0.1.0 (rev abc1234, 2026-11-29)"},
		{Info{Version: "0.2.0"}, "starkgraph 0.2.0 (rev unknown)"},
	} {
		if got := c.info.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}

// A test binary has no VCS stamp: the version is the source tree's, the revision unknown.
func TestThisBuild(t *testing.T) {
	if Version() != DefaultVersion {
		t.Errorf("Version() = %q, want %q", Version(), DefaultVersion)
	}
	if Revision() == "" || ShortRevision() == "" {
		t.Error("Revision() is empty; want a revision or \"unknown\"")
	}
	if !regexp.MustCompile(`^starkgraph \d+\.\d+\.\d+ \(rev ([0-9a-f]{7}|unknown)`).MatchString(String()) {
		t.Errorf("String() = %q", String())
	}
	if Get().GoVersion == "" {
		t.Error("no Go version")
	}
}
