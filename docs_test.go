package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db/dbtest"
)

// flagsOf runs `starkgraph args... -h` and returns the flags its usage lists.
func flagsOf(t *testing.T, env []string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(args, "-h")...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("starkgraph %s -h: %v\n%s", strings.Join(args, " "), err, out)
	}
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9][a-z0-9-]*)`).FindAllStringSubmatch(string(out), -1) {
		flags = append(flags, m[1])
	}
	return flags
}

// commandFlags are the flags of every command, from their -h output; "keys create" is
// the keys command's only one with flags, "webhooks list" and "webhooks replay" the
// webhooks command's.
func commandFlags(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, c := range commands() {
		switch c.name {
		case "keys":
			out["keys create"] = flagsOf(t, []string{"DATABASE_URL=" + dbtest.NewURL(t)}, "keys", "create")
		case "labels":
			out["labels list"] = flagsOf(t, []string{"DATABASE_URL=" + dbtest.NewURL(t)}, "labels", "list")
		case "replay":
			out[c.name] = flagsOf(t, nil, "replay", "DIR")
		case "webhooks":
			out["webhooks list"] = flagsOf(t, nil, "webhooks", "list")
			out["webhooks replay"] = flagsOf(t, nil, "webhooks", "replay")
		default:
			out[c.name] = flagsOf(t, nil, c.name)
		}
	}
	return out
}

// codeEnvironment is every environment variable the program reads: the first argument of
// each call to os.Getenv, os.LookupEnv, envOr, envInt, envTrue or a getenv function, in the Go
// files of the program (tests and test helpers left out).
func codeEnvironment(t *testing.T) map[string]string {
	t.Helper()
	readers := map[string]bool{"Getenv": true, "LookupEnv": true, "envOr": true, "envInt": true, "envTrue": true, "getenv": true}
	found := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "internal" || name == "faults" ||
				strings.HasSuffix(name, "test") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			var name string
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && readers[name] && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil {
					found[v] = fset.Position(lit.Pos()).String()
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// configRow is a row of a table of docs/configuration.md: its flags, its variables and
// the commands it names.
type configRow struct {
	line     int
	flags    []string
	env      []string
	commands []string
}

func configurationRows(t *testing.T) []configRow {
	t.Helper()
	raw, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	flagRE := regexp.MustCompile("`--([a-z0-9][a-z0-9-]*)`")
	envRE := regexp.MustCompile("`([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{4,})`")
	var rows []configRow
	for i, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "|") || len(cells) != 5 || cells[0] == "flag" {
			continue
		}
		row := configRow{line: i + 1}
		for _, m := range flagRE.FindAllStringSubmatch(cells[0], -1) {
			row.flags = append(row.flags, m[1])
		}
		for _, m := range envRE.FindAllStringSubmatch(cells[1], -1) {
			row.env = append(row.env, m[1])
		}
		for _, c := range strings.Split(cells[3], ",") {
			row.commands = append(row.commands, strings.TrimSpace(c))
		}
		rows = append(rows, row)
	}
	if len(rows) < 20 {
		t.Fatalf("docs/configuration.md: only %d rows of flags and variables found", len(rows))
	}
	return rows
}

// docs/configuration.md names every flag of every command (in a row that names the
// command) and every environment variable the code reads, and nothing else: a flag
// added, renamed or removed without the page fails here.
func TestConfigurationPageMatchesTheCode(t *testing.T) {
	flags := commandFlags(t)
	env := codeEnvironment(t)
	rows := configurationRows(t)

	for cmd, fl := range flags {
		for _, f := range fl {
			if !slices.ContainsFunc(rows, func(r configRow) bool {
				return slices.Contains(r.flags, f) && slices.Contains(r.commands, cmd)
			}) {
				t.Errorf("docs/configuration.md has no row for --%s of %s", f, cmd)
			}
		}
	}
	documentedEnv := map[string]bool{}
	for _, r := range rows {
		for _, cmd := range r.commands {
			if len(r.flags) == 0 {
				continue
			}
			have, ok := flags[cmd]
			if !ok {
				t.Errorf("docs/configuration.md:%d names the command %q, which does not exist or has no flags", r.line, cmd)
				continue
			}
			for _, f := range r.flags {
				if !slices.Contains(have, f) {
					t.Errorf("docs/configuration.md:%d names --%s for %s, which has no such flag", r.line, f, cmd)
				}
			}
		}
		for _, e := range r.env {
			documentedEnv[e] = true
			if _, ok := env[e]; !ok {
				t.Errorf("docs/configuration.md:%d names the environment variable %s, which the code does not read", r.line, e)
			}
		}
	}
	var missing []string
	for e, where := range env {
		if !documentedEnv[e] {
			missing = append(missing, e+" (read at "+where+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("docs/configuration.md does not document the environment variable %s", m)
	}
	n := 0
	for _, fl := range flags {
		n += len(fl)
	}
	t.Logf("%d flags of %d commands and %d environment variables checked", n, len(flags), len(env))
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*$`)
	fence     = regexp.MustCompile("(?ms)^```.*?^```")
	codeSpan  = regexp.MustCompile("`[^`\n]*`")
)

// anchors are the GitHub anchors of a Markdown file's headings.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(fence.ReplaceAllString(text, ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		out[b.String()] = true
	}
	return out
}

// Every relative link of README.md, CONTRIBUTING.md and docs/*.md leads to a file that
// exists, and to a heading of it when it names one; README links every page of docs/.
func TestDocsLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{"README.md", "CONTRIBUTING.md"}, pages...)
	linkedFromREADME := map[string]bool{}
	checked := 0
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := codeSpan.ReplaceAllString(fence.ReplaceAllString(string(raw), ""), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			resolved := file
			if path != "" {
				resolved = filepath.Clean(filepath.Join(filepath.Dir(file), path))
			}
			if file == "README.md" {
				linkedFromREADME[resolved] = true
			}
			checked++
			body, err := os.ReadFile(resolved)
			if err != nil {
				t.Errorf("%s: the link %q leads to %s, which does not exist", file, target, resolved)
				continue
			}
			if anchor != "" && strings.HasSuffix(resolved, ".md") && !anchors(string(body))[anchor] {
				t.Errorf("%s: the link %q names #%s, which is no heading of %s", file, target, anchor, resolved)
			}
		}
	}
	for _, p := range pages {
		if !linkedFromREADME[p] {
			t.Errorf("README.md does not link %s (its docs map should)", p)
		}
	}
	readme, _ := os.ReadFile("README.md")
	if n := strings.Count(string(readme), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; it is the entry page, at most 250 (move reference material to docs/)", n)
	}
	t.Logf("%d links in %d files checked", checked, len(files))
}
