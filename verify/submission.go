package verify

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on a submission: the worker writes its files to disk and compiles them.
const (
	MaxFiles      = 500
	MaxFieldLen   = 256
	MaxPathLen    = 512
	ScarbManifest = "Scarb.toml"
)

// Problem says which field of a submission is wrong and why; both APIs turn it into a 400
// (REST) or a BAD_USER_INPUT error (GraphQL) under their own name of the field.
type Problem struct {
	Field  string
	Reason string
}

func (p *Problem) Error() string { return p.Field + ": " + p.Reason }

// CheckText refuses a text field with a NUL byte, invalid UTF-8 or more than MaxFieldLen
// bytes.
func CheckText(field, value string) *Problem {
	switch {
	case strings.IndexByte(value, 0) >= 0:
		return &Problem{field, "contains a NUL byte"}
	case !utf8.ValidString(value):
		return &Problem{field, "is not valid UTF-8"}
	case len(value) > MaxFieldLen:
		return &Problem{field, fmt.Sprintf("is longer than %d bytes", MaxFieldLen)}
	}
	return nil
}

// CheckBuildTool accepts the build tools of the spec's enum (empty means scarb).
func CheckBuildTool(field, value string) *Problem {
	switch strings.ToLower(value) {
	case "", "scarb", "sozo":
		return nil
	}
	return &Problem{field, fmt.Sprintf("%s is not one of scarb, sozo", strconv.Quote(clip(value, 40)))}
}

// CheckProjectDir accepts a relative directory inside the project ("" and "." are its root).
func CheckProjectDir(field, dir string) *Problem {
	if p := CheckText(field, dir); p != nil {
		return p
	}
	if d := strings.Trim(dir, "/"); d != "" && d != "." && !SafeRelativePath(d) {
		return &Problem{field, fmt.Sprintf("%s is not a relative path inside the project", strconv.Quote(clip(dir, 80)))}
	}
	return nil
}

// CheckFiles checks the source files: 1 to MaxFiles of them, each under a relative path
// that stays inside the project (not empty, not absolute, no "..", no backslash), names and
// contents valid UTF-8 without NUL bytes, and a Scarb.toml in the project directory.
func CheckFiles(field string, files map[string]string, projectDir string) *Problem {
	if len(files) == 0 {
		return &Problem{field, "at least one source file is required"}
	}
	if len(files) > MaxFiles {
		return &Problem{field, fmt.Sprintf("%d files, more than the %d allowed", len(files), MaxFiles)}
	}
	for p, content := range files {
		name := strconv.Quote(clip(p, 80))
		switch {
		case p == "":
			return &Problem{field, "a file has an empty path"}
		case !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0:
			return &Problem{field, fmt.Sprintf("file path %s is not valid UTF-8 text", name)}
		case len(p) > MaxPathLen:
			return &Problem{field, fmt.Sprintf("file path %s is longer than %d bytes", name, MaxPathLen)}
		case strings.Contains(p, `\`):
			return &Problem{field, fmt.Sprintf("file path %s contains a backslash; use / between directories", name)}
		case path.IsAbs(p):
			return &Problem{field, fmt.Sprintf("file path %s is absolute; paths are relative to the project", name)}
		case !SafeRelativePath(p):
			return &Problem{field, fmt.Sprintf("file path %s leaves the project (..)", name)}
		case strings.IndexByte(content, 0) >= 0:
			return &Problem{field, fmt.Sprintf("file %s contains a NUL byte", name)}
		case !utf8.ValidString(content):
			return &Problem{field, fmt.Sprintf("file %s is not valid UTF-8 text", name)}
		}
	}
	manifest := ScarbManifest
	if d := strings.Trim(projectDir, "/"); d != "" && d != "." {
		manifest = path.Clean(d) + "/" + ScarbManifest
	}
	found := false
	for p := range files {
		if path.Clean(p) == manifest {
			found = true
			break
		}
	}
	if !found {
		return &Problem{field, fmt.Sprintf("no %s: scarb builds the project whose manifest is %s (project_dir_path + Scarb.toml)", manifest, manifest)}
	}
	return nil
}
