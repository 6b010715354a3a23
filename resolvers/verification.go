package resolvers

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// notFound is an error about a thing the client named that does not exist; the REST
// layer turns it into a 404.
func notFound(msg string) error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": CodeNotFound}}
}

// IsNotFound reports whether err says that something the client named does not exist.
func IsNotFound(err error) bool {
	e, ok := err.(*gqlerror.Error)
	return ok && e.Extensions["code"] == CodeNotFound
}

// verificationStatuses names the job statuses, by number.
var verificationStatuses = []string{"Submitted", "Compiled", "CompileFailed", "Fail", "Success", "Processing"}

func verificationStatus(status int) string {
	if status >= 0 && status < len(verificationStatuses) {
		return verificationStatuses[status]
	}
	return "Unknown"
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Bounds on a submission: the worker writes the files to disk and compiles them.
const (
	maxVerifyFiles    = 2000
	maxVerifyField    = 256
	maxVerifyPathSize = 512
)

// newVerificationJob checks a submission and turns it into a store row (without the class,
// which the caller resolves).
func newVerificationJob(in model.VerificationInput) (db.NewVerificationJob, error) {
	job := db.NewVerificationJob{
		Name: in.Name, CompilerVersion: in.CompilerVersion, ScarbVersion: in.ScarbVersion,
		DojoVersion: in.DojoVersion, ProjectDirPath: in.ProjectDirPath, PackageName: in.PackageName,
		License: in.License, ContractFile: in.ContractFile, BuildTool: in.BuildTool,
	}
	required := []struct{ arg, val string }{
		{"name", in.Name}, {"compilerVersion", in.CompilerVersion}, {"packageName", in.PackageName},
	}
	for _, f := range required {
		if strings.TrimSpace(f.val) == "" {
			return job, badInput(f.arg, "must not be empty")
		}
	}
	optional := []struct {
		arg string
		val *string
	}{
		{"name", &in.Name}, {"compilerVersion", &in.CompilerVersion}, {"packageName", &in.PackageName},
		{"contractFile", &in.ContractFile}, {"scarbVersion", in.ScarbVersion}, {"dojoVersion", in.DojoVersion},
		{"projectDirPath", in.ProjectDirPath}, {"license", in.License}, {"buildTool", in.BuildTool},
	}
	for _, f := range optional {
		if f.val != nil && len(*f.val) > maxVerifyField {
			return job, badInput(f.arg, fmt.Sprintf("is longer than %d characters", maxVerifyField))
		}
	}
	if in.BuildTool != nil && *in.BuildTool != "" && *in.BuildTool != "scarb" && *in.BuildTool != "sozo" {
		return job, badInput("buildTool", "must be scarb or sozo")
	}
	if in.ProjectDirPath != nil && *in.ProjectDirPath != "" && !safeRelativePath(*in.ProjectDirPath) {
		return job, badInput("projectDirPath", "must be a relative path inside the project")
	}
	if err := json.Unmarshal(in.Files, &job.Files); err != nil || job.Files == nil {
		return job, badInput("files", "must be an object of file path -> source text")
	}
	if len(job.Files) == 0 || len(job.Files) > maxVerifyFiles {
		return job, badInput("files", fmt.Sprintf("must hold 1 to %d files", maxVerifyFiles))
	}
	for p := range job.Files {
		if len(p) > maxVerifyPathSize || !safeRelativePath(p) {
			return job, badInput("files", fmt.Sprintf("has a path %q that is not a relative path inside the project", truncate(p, 80)))
		}
	}
	return job, nil
}

// safeRelativePath accepts paths that stay inside the directory they are written to.
func safeRelativePath(p string) bool {
	if p == "" || strings.ContainsRune(p, 0) || strings.Contains(p, "\\") || path.IsAbs(p) {
		return false
	}
	for _, part := range strings.Split(path.Clean(p), "/") {
		if part == ".." {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// parseJobID reads a job id (a UUID in any of its usual spellings) into its canonical form.
func parseJobID(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return "", badInput("id", "is not a verification job id (a UUID)")
	}
	return u.String(), nil
}
