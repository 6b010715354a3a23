package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/verify"
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

// verifySubmitAnswer is the spec's union VerifyContractClassResponse, of which one member
// is sent: {"job_id": ...} when a job is queued, {"verification_status": "Ok"} when the
// class is already verified (nothing is compiled).
type verifySubmitAnswer struct {
	JobID              string `json:"job_id,omitempty"`
	VerificationStatus string `json:"verification_status,omitempty" enum:"Ok,Error"`
}

func submitVerificationOp(ctx context.Context, s *server, a *args, r *http.Request) (any, error) {
	sub, err := readSubmission(r)
	if err != nil {
		return nil, err
	}
	if err := sub.validate(); err != nil {
		return nil, err
	}
	res, err := s.res.Mutation().SubmitVerification(ctx, sub.input(a.felt("hash")))
	if bad := formError(err); bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, err
	}
	if res.AlreadyVerified {
		return verifySubmitAnswer{VerificationStatus: "Ok"}, nil
	}
	return verifySubmitAnswer{JobID: res.Job.ID}, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// readSubmission decodes a JSON or multipart body; bodies over 10 MB are a 413.
func readSubmission(r *http.Request) (*verifySubmission, error) {
	if r.ContentLength > maxVerifyBody { // refused unread: nothing decoded or kept
		return nil, bodyError(&http.MaxBytesError{Limit: maxVerifyBody})
	}
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

// bodyError turns a failure to read the body into a 4xx in the form's terms, never the
// decoder's (which names Go types).
func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &apiError{status: http.StatusRequestEntityTooLarge, msg: "body: larger than 10 MB"}
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return err
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field == "files":
		return badRequest("files: must be an object of file path -> source text")
	case errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Field, "files."):
		return badRequest("files: the source of %q must be a string", short(strings.TrimPrefix(typeErr.Field, "files.")))
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return badRequest("%s: must be a string", short(typeErr.Field))
	case errors.As(err, &typeErr):
		return badRequest("body: must be a JSON object with the form's fields")
	case errors.As(err, &syntaxErr):
		return badRequest("body: not valid JSON (at byte %d)", syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return badRequest("body: ends too early")
	}
	return badRequest("body: malformed; send multipart/form-data or a JSON object")
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
		case name == "files" && uploadName(part) != "":
			sub.Files[uploadName(part)] = string(value)
		case name == "files":
			var m map[string]string
			if err := json.Unmarshal(value, &m); err != nil {
				return badRequest("files: not a JSON object of path -> source text")
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

// uploadName is the file name of an upload as the client sent it: Part.FileName keeps only
// its last element, and the path (src/lib.cairo) is what places the file in the project.
func uploadName(part *multipart.Part) string {
	_, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	if err != nil {
		return part.FileName()
	}
	return params["filename"]
}

// validate checks what must be checked before the form becomes a VerificationInput: the
// required fields, in the reference's words, and the files, whose invalid UTF-8 the JSON
// encoding of the input would silently replace. The rest is checked by the resolver
// (resolvers.CheckVerification), whose errors name GraphQL arguments that restField turns
// back into form fields.
func (sub *verifySubmission) validate() error {
	for _, f := range []struct{ name, value string }{
		{"compiler_version", sub.CompilerVersion}, {"scarb_version", sub.ScarbVersion},
		{"name", sub.Name}, {"package_name", sub.PackageName},
	} {
		if strings.TrimSpace(f.value) == "" {
			return badRequest("%s: required field is missing or empty", f.name)
		}
	}
	if p := verify.CheckProjectDir("project_dir_path", sub.ProjectDirPath); p != nil {
		return badRequest("%s", p.Error())
	}
	if p := verify.CheckFiles("files", sub.Files, sub.ProjectDirPath); p != nil {
		return badRequest("%s", p.Error())
	}
	return nil
}

// input is the submission as the resolvers take it.
func (sub *verifySubmission) input(hash db.Felt) model.VerificationInput {
	files, _ := json.Marshal(sub.Files)
	return model.VerificationInput{
		ClassHash: hash, Name: sub.Name, CompilerVersion: sub.CompilerVersion, PackageName: sub.PackageName,
		ContractFile: sub.ContractFile, License: sub.License, Files: db.JSON(files),
		ScarbVersion: optional(sub.ScarbVersion), DojoVersion: optional(sub.DojoVersion),
		ProjectDirPath: optional(sub.ProjectDirPath), BuildTool: optional(sub.BuildTool),
	}
}

// formError is a 400 naming the form field when err is the resolver's argument error.
func formError(err error) error {
	arg, ok := resolvers.IsBadInput(err)
	if !ok {
		return nil
	}
	msg := err.Error()
	var ge *gqlerror.Error
	if errors.As(err, &ge) {
		msg = ge.Message
	}
	return badRequest("%s: %s", restField(arg), strings.TrimPrefix(msg, arg+" "))
}

// restField is the form field (or path parameter) of a GraphQL argument of the
// verification input: compilerVersion -> compiler_version, classHash -> hash.
func restField(arg string) string {
	if arg == "classHash" {
		return "hash"
	}
	var b strings.Builder
	for _, r := range arg {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// verifyJob is the answer of GET /beta/class-verify/job/{job}. status: 0 Submitted,
// 1 Compiled, 2 CompileFailed, 3 Fail, 4 Success, 5 Processing. class_hash is the class on
// chain; obtained_class_hash the class the sources compiled to (Fail and Success);
// compiler_output the compiler's words, trimmed to their start and end.
type verifyJob struct {
	JobID             string  `json:"job_id"`
	Status            int     `json:"status" enum:"0,1,2,3,4,5"`
	StatusDescription string  `json:"status_description"`
	ClassHash         string  `json:"class_hash"`
	ObtainedClassHash *string `json:"obtained_class_hash"`
	Name              *string `json:"name"`
	Message           *string `json:"message"`
	CompilerOutput    *string `json:"compiler_output"`
	Attempts          int     `json:"attempts"`
	CreatedTimestamp  int64   `json:"created_timestamp"`
	UpdatedTimestamp  int64   `json:"updated_timestamp"`
	FinishedTimestamp *int64  `json:"finished_timestamp"`
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
	out := verifyJob{
		JobID: job.ID, Status: job.Status, StatusDescription: desc, ClassHash: addr(job.ClassHash),
		ObtainedClassHash: addrOrNil(job.ObtainedClassHash), Name: job.Name, Message: job.Message,
		CompilerOutput: job.CompilerOutput, Attempts: job.Attempts,
		CreatedTimestamp: job.CreatedTime.Unix(), UpdatedTimestamp: job.UpdatedTime.Unix(),
	}
	if job.FinishedTime != nil {
		ts := job.FinishedTime.Unix()
		out.FinishedTimestamp = &ts
	}
	return out, nil
}

// verifiedRecord is what a class's verification published: shown in the class's details,
// and with the sources by GET /beta/classes/{classHash}/source.
type verifiedRecord struct {
	ClassHash         string  `json:"classHash"`
	Name              string  `json:"name"`
	PackageName       *string `json:"packageName"`
	License           *string `json:"license"`
	CompilerVersion   *string `json:"compilerVersion"`
	ScarbVersion      *string `json:"scarbVersion"`
	BuildTool         *string `json:"buildTool"`
	ContractFile      *string `json:"contractFile"`
	ProjectDirPath    *string `json:"projectDirPath"`
	VerifiedTimestamp int64   `json:"verifiedTimestamp"`
	// Files lists the paths of the sources.
	Files []string `json:"files"`
}

// classSource is the answer of GET /beta/classes/{classHash}/source.
type classSource struct {
	verifiedRecord
	// Sources are the verified files, by path.
	Sources map[string]string `json:"sources"`
	Abi     any               `json:"abi" schema:"any"`
}

func (s *server) verifiedRecord(ctx context.Context, c *db.Class) (*verifiedRecord, error) {
	v, err := s.res.Class().Verified(ctx, c)
	if err != nil || v == nil {
		return nil, err
	}
	return &verifiedRecord{
		ClassHash: addr(v.ClassHash), Name: v.VerifiedName, PackageName: v.PackageName, License: v.License,
		CompilerVersion: v.CompilerVersion, ScarbVersion: v.ScarbVersion, BuildTool: v.BuildTool,
		ContractFile: v.ContractFile, ProjectDirPath: v.ProjectDirPath, VerifiedTimestamp: v.VerifiedTimestamp,
		Files: append([]string{}, v.FilePaths...),
	}, nil
}

func classSourceOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	c, err := s.requireClass(ctx, a.felt("classHash"))
	if err != nil {
		return nil, err
	}
	rec, err := s.verifiedRecord(ctx, c)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, notFound("classHash: class %s is not verified: no sources are known", addr(c.Hash))
	}
	src, err := loaders.For(ctx).VerifiedSources.Load(ctx, string(c.Hash))()
	if err != nil {
		return nil, err
	}
	out := classSource{verifiedRecord: *rec, Sources: map[string]string{}}
	if src != nil {
		if err := json.Unmarshal(src.Files, &out.Sources); err != nil {
			return nil, fmt.Errorf("verified sources of %s: %w", addr(c.Hash), err)
		}
		if src.Abi != nil {
			out.Abi = src.Abi
		}
	}
	return out, nil
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
