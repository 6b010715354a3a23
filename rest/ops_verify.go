package rest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// maxVerifyBody bounds a verification request (sources included).
const maxVerifyBody = 10 << 20

// verifySubmission is the body of POST /beta/class-verify/{hash}, as multipart/form-data
// fields or as a JSON object with the same names.
type verifySubmission struct {
	CompilerVersion string            `json:"compiler_version"`
	ScarbVersion    string            `json:"scarb_version"`
	ProjectDirPath  string            `json:"project_dir_path,omitempty"`
	Name            string            `json:"name"`
	PackageName     string            `json:"package_name"`
	License         *string           `json:"license"`
	Files           map[string]string `json:"files"`
	BuildTool       string            `json:"build_tool,omitempty" enum:"scarb,sozo"`
	DojoVersion     string            `json:"dojo_version,omitempty"`
	ContractFile    string            `json:"contract_file,omitempty"`
}

// verifyJobCreated is the answer when a job is queued.
type verifyJobCreated struct {
	JobID string `json:"job_id"`
}

func submitVerificationOp(ctx context.Context, s *server, a *args, r *http.Request) (any, error) {
	sub, err := readSubmission(r)
	if err != nil {
		return nil, err
	}
	if err := sub.validate(); err != nil {
		return nil, err
	}
	files, _ := json.Marshal(sub.Files)
	input := model.VerificationInput{
		ClassHash: a.felt("hash"), Name: sub.Name, CompilerVersion: sub.CompilerVersion, PackageName: sub.PackageName,
		ContractFile: sub.ContractFile, License: sub.License, Files: db.JSON(files),
		ScarbVersion: optional(sub.ScarbVersion), DojoVersion: optional(sub.DojoVersion),
		ProjectDirPath: optional(sub.ProjectDirPath), BuildTool: optional(sub.BuildTool),
	}
	job, err := s.res.Mutation().SubmitVerification(ctx, input)
	if err != nil {
		if status, msg := statusOf(err); status < 500 {
			return nil, &apiError{status: status, msg: "hash: " + msg}
		}
		return nil, err
	}
	return verifyJobCreated{JobID: job.ID}, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// readSubmission decodes a JSON or multipart body; bodies over 10 MB are a 413.
func readSubmission(r *http.Request) (*verifySubmission, error) {
	r.Body = http.MaxBytesReader(nil, r.Body, maxVerifyBody)
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	sub := &verifySubmission{}
	switch mediaType {
	case "application/json":
		dec := json.NewDecoder(r.Body)
		if err := dec.Decode(sub); err != nil {
			return nil, bodyError(err)
		}
	case "multipart/form-data":
		if params["boundary"] == "" {
			return nil, badRequest("body: multipart/form-data without a boundary")
		}
		if err := readMultipart(multipart.NewReader(r.Body, params["boundary"]), sub); err != nil {
			return nil, bodyError(err)
		}
	default:
		return nil, badRequest("body: send multipart/form-data or application/json, not %q", short(mediaType))
	}
	return sub, nil
}

func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &apiError{status: http.StatusRequestEntityTooLarge, msg: "body: larger than 10 MB"}
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return err
	}
	return badRequest("body: %v", err)
}

// readMultipart reads the form fields. Source files arrive as parts named `files[<path>]`
// (fields or file uploads), as file uploads named `files` (the upload's file name is the
// path), or as one `files` field holding a JSON object of path -> source.
func readMultipart(mr *multipart.Reader, sub *verifySubmission) error {
	sub.Files = map[string]string{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		value, err := io.ReadAll(part)
		if err != nil {
			return err
		}
		name := part.FormName()
		switch {
		case strings.HasPrefix(name, "files[") && strings.HasSuffix(name, "]"):
			sub.Files[name[len("files["):len(name)-1]] = string(value)
		case name == "files" && part.FileName() != "":
			sub.Files[part.FileName()] = string(value)
		case name == "files":
			var m map[string]string
			if err := json.Unmarshal(value, &m); err != nil {
				return badRequest("files: not a JSON object of path -> source: %v", err)
			}
			for k, v := range m {
				sub.Files[k] = v
			}
		default:
			v := string(value)
			switch name {
			case "compiler_version":
				sub.CompilerVersion = v
			case "scarb_version":
				sub.ScarbVersion = v
			case "project_dir_path":
				sub.ProjectDirPath = v
			case "name":
				sub.Name = v
			case "package_name":
				sub.PackageName = v
			case "license":
				sub.License = &v
			case "build_tool":
				sub.BuildTool = v
			case "dojo_version":
				sub.DojoVersion = v
			case "contract_file":
				sub.ContractFile = v
			}
		}
	}
}

// validate checks the required fields and fills the contract file when the client left
// it out (the package's lib.cairo, or the first Cairo file).
func (sub *verifySubmission) validate() error {
	for _, f := range []struct{ name, value string }{
		{"compiler_version", sub.CompilerVersion}, {"scarb_version", sub.ScarbVersion},
		{"name", sub.Name}, {"package_name", sub.PackageName},
	} {
		if strings.TrimSpace(f.value) == "" {
			return badRequest("%s: required field is missing or empty", f.name)
		}
	}
	if len(sub.Files) == 0 {
		return badRequest("files: at least one source file is required")
	}
	sub.BuildTool = strings.ToLower(sub.BuildTool)
	if sub.BuildTool != "" && sub.BuildTool != "scarb" && sub.BuildTool != "sozo" {
		return badRequest("build_tool: %q is not one of scarb, sozo", short(sub.BuildTool))
	}
	if sub.ContractFile == "" {
		paths := make([]string, 0, len(sub.Files))
		for p := range sub.Files {
			if strings.HasSuffix(p, ".cairo") {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			if strings.HasSuffix(p, "lib.cairo") {
				sub.ContractFile = p
				break
			}
		}
		if sub.ContractFile == "" && len(paths) > 0 {
			sub.ContractFile = paths[0]
		}
		if sub.ContractFile == "" {
			return badRequest("contract_file: missing, and files hold no .cairo file")
		}
	} else if _, ok := sub.Files[sub.ContractFile]; !ok {
		return badRequest("contract_file: %q is not among files", short(sub.ContractFile))
	}
	return nil
}

// verifyJob is the answer of GET /beta/class-verify/job/{job}. status: 0 Submitted,
// 1 Compiled, 2 CompileFailed, 3 Fail, 4 Success, 5 Processing.
type verifyJob struct {
	JobID             string  `json:"job_id"`
	Status            int     `json:"status" enum:"0,1,2,3,4,5"`
	StatusDescription string  `json:"status_description"`
	ClassHash         string  `json:"class_hash"`
	Name              *string `json:"name"`
	Message           *string `json:"message"`
	CreatedTimestamp  int64   `json:"created_timestamp"`
	UpdatedTimestamp  int64   `json:"updated_timestamp"`
}

func verifyJobOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	id, err := uuid.Parse(a.str("job"))
	if err != nil {
		return nil, badRequest("job: %q is not a job id (a UUID)", short(a.str("job")))
	}
	job, err := s.res.Query().VerificationJob(ctx, id.String())
	if job, err = found(job, err, "job: no verification job %s", id); err != nil {
		return nil, err
	}
	desc, err := s.res.VerificationJob().StatusDescription(ctx, job)
	if err != nil {
		return nil, err
	}
	return verifyJob{
		JobID: job.ID, Status: job.Status, StatusDescription: desc, ClassHash: addr(job.ClassHash),
		Name: job.Name, Message: job.Message,
		CreatedTimestamp: job.CreatedTime.Unix(), UpdatedTimestamp: job.UpdatedTime.Unix(),
	}, nil
}

// verificationCheck is the answer of GET /beta/class-verify/check/{hash}.
type verificationCheck struct {
	ClassHash         string  `json:"class_hash"`
	IsVerified        bool    `json:"is_verified"`
	VerifiedName      *string `json:"verified_name"`
	VerifiedTimestamp *int64  `json:"verified_timestamp"`
}

func verificationCheckOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	hash := a.felt("hash")
	class, err := s.res.Query().Class(ctx, hash)
	if err != nil {
		return nil, err
	}
	if class == nil {
		// The hash may be a contract address: check its class.
		c, err := s.res.Query().Contract(ctx, hash)
		if err != nil {
			return nil, err
		}
		if c != nil {
			if class, err = s.res.Contract().Class(ctx, c); err != nil {
				return nil, err
			}
		}
	}
	if class == nil {
		return nil, notFound("hash: no class or contract %s", addr(hash))
	}
	out := verificationCheck{ClassHash: addr(class.Hash)}
	if out.IsVerified, out.VerifiedName, out.VerifiedTimestamp, err = s.verification(ctx, class); err != nil {
		return nil, err
	}
	return out, nil
}

// verification is what the answers about a class say of its verification: whether it is
// verified, and under which name since when.
func (s *server) verification(ctx context.Context, c *db.Class) (verified bool, name *string, since *int64, err error) {
	v, err := s.res.Class().Verified(ctx, c)
	if err != nil || v == nil {
		return false, nil, nil, err
	}
	return true, &v.VerifiedName, &v.VerifiedTimestamp, nil
}
