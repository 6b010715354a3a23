package resolvers

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/verify"
)

// verificationStatuses names the job statuses, by number.
var verificationStatuses = []string{"Submitted", "Compiled", "CompileFailed", "Fail", "Success", "Processing"}

func verificationStatus(status int) string {
	if status >= 0 && status < len(verificationStatuses) {
		return verificationStatuses[status]
	}
	return "Unknown"
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// CheckVerification checks a submission and turns it into a store row (without the class,
// which the caller resolves), filling the contract file when none is named. The rules are
// verify's, named with this API's argument names; REST names them back (rest/ops_verify.go).
func CheckVerification(in model.VerificationInput) (db.NewVerificationJob, error) {
	job := db.NewVerificationJob{
		Name: in.Name, CompilerVersion: in.CompilerVersion, ScarbVersion: in.ScarbVersion,
		DojoVersion: in.DojoVersion, ProjectDirPath: in.ProjectDirPath, PackageName: in.PackageName,
		License: in.License, ContractFile: in.ContractFile, BuildTool: in.BuildTool,
	}
	required := []struct{ arg, val string }{
		{"name", in.Name}, {"compilerVersion", in.CompilerVersion}, {"packageName", in.PackageName},
		{"scarbVersion", deref(in.ScarbVersion)},
	}
	for _, f := range required {
		if strings.TrimSpace(f.val) == "" {
			return job, badInput(f.arg, "must not be empty")
		}
	}
	texts := []struct{ arg, val string }{
		{"name", in.Name}, {"compilerVersion", in.CompilerVersion}, {"packageName", in.PackageName},
		{"contractFile", in.ContractFile}, {"scarbVersion", deref(in.ScarbVersion)}, {"dojoVersion", deref(in.DojoVersion)},
		{"license", deref(in.License)}, {"buildTool", deref(in.BuildTool)},
	}
	for _, f := range texts {
		if p := verify.CheckText(f.arg, f.val); p != nil {
			return job, badInput(p.Field, p.Reason)
		}
	}
	if p := verify.CheckBuildTool("buildTool", deref(in.BuildTool)); p != nil {
		return job, badInput(p.Field, p.Reason)
	}
	if p := verify.CheckProjectDir("projectDirPath", deref(in.ProjectDirPath)); p != nil {
		return job, badInput(p.Field, p.Reason)
	}
	if err := json.Unmarshal(in.Files, &job.Files); err != nil || job.Files == nil {
		return job, badInput("files", "must be an object of file path -> source text")
	}
	if p := verify.CheckFiles("files", job.Files, deref(in.ProjectDirPath)); p != nil {
		return job, badInput(p.Field, p.Reason)
	}
	// Build tools are matched in any case; the worker knows them in lower case.
	if job.BuildTool != nil {
		tool := strings.ToLower(*job.BuildTool)
		job.BuildTool = &tool
	}
	if in.ContractFile == "" {
		if job.ContractFile = defaultContractFile(job.Files); job.ContractFile == "" {
			return job, badInput("contractFile", "missing, and files hold no .cairo file")
		}
	} else if _, ok := job.Files[in.ContractFile]; !ok {
		return job, badInput("contractFile", fmt.Sprintf("%q is not among files", truncate(in.ContractFile, 80)))
	}
	return job, nil
}

// defaultContractFile is the contract file of a submission that names none: the first
// lib.cairo in path order, else the first Cairo file; "" when there is none.
func defaultContractFile(files map[string]string) string {
	var paths []string
	for p := range files {
		if strings.HasSuffix(p, ".cairo") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		if strings.HasSuffix(p, "lib.cairo") {
			return p
		}
	}
	if len(paths) > 0 {
		return paths[0]
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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

// classToVerify resolves the hash of a submission, a class hash or a contract address, to
// the class on the indexed chain. Neither, or a Cairo 0 class (scarb builds Cairo 1 and
// later only), is the client's mistake.
func (r *Resolver) classToVerify(ctx context.Context, hashOrAddress db.Felt) (*db.Class, error) {
	hash, err := r.Store.ClassOf(ctx, hashOrAddress)
	if err != nil {
		return nil, err
	}
	var class *db.Class
	if hash != nil {
		if class, err = loaders.For(ctx).Class.Load(ctx, string(hash))(); err != nil {
			return nil, err
		}
	}
	if class == nil {
		return nil, badInput("classHash", fmt.Sprintf("%s is neither a class nor a contract on the indexed chain", hashOrAddress.Padded()))
	}
	if class.CairoVersion == 0 {
		return nil, badInput("classHash", fmt.Sprintf("class %s is a Cairo 0 class; only Sierra (Cairo 1 and later) classes can be verified", class.Hash.Padded()))
	}
	return class, nil
}

// sourceFiles lists stored files (path -> content) in path order.
func sourceFiles(files db.JSON) ([]*model.SourceFile, error) {
	var m map[string]string
	if err := json.Unmarshal(files, &m); err != nil {
		return nil, fmt.Errorf("verified sources: %w", err)
	}
	out := make([]*model.SourceFile, 0, len(m))
	for p, c := range m {
		out = append(out, &model.SourceFile{Path: p, Content: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
