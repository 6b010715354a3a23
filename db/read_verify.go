package db

import (
	"context"
	"encoding/json"
)

// Reads and the one API write of class verification: jobs submitted by clients, which the
// verification worker picks up.

// ClassOf resolves a class hash or a contract address to a class hash: the class when one
// has that hash, else the class of the contract at that address; nil when neither exists.
func (s *Store) ClassOf(ctx context.Context, hashOrAddress Felt) (Felt, error) {
	var class Felt
	ok, err := s.getRow(ctx, &class, `SELECT hash FROM (
			SELECT hash, 0 AS pref FROM classes WHERE hash = $1
			UNION ALL SELECT class_hash, 1 FROM contracts WHERE address = $1) found
		ORDER BY pref LIMIT 1`, hashOrAddress)
	if !ok {
		return nil, err
	}
	return class, nil
}

// NewVerificationJob is what a client submits for verification.
type NewVerificationJob struct {
	ClassHash       Felt
	Name            string
	CompilerVersion string
	ScarbVersion    *string
	DojoVersion     *string
	ProjectDirPath  *string
	PackageName     string
	License         *string
	ContractFile    string
	BuildTool       *string
	Files           map[string]string
}

var verificationJobCols = rowShapeOf[VerificationJob]().selectList("")

// InsertVerificationJob stores a job with status 0 (Submitted) and returns it.
func (s *Store) InsertVerificationJob(ctx context.Context, j NewVerificationJob) (*VerificationJob, error) {
	files, err := json.Marshal(j.Files)
	if err != nil {
		return nil, err
	}
	var job VerificationJob
	_, err = s.getRow(ctx, &job, `WITH job AS (INSERT INTO verification_jobs (id, class_hash, status, name, compiler_version,
			scarb_version, dojo_version, project_dir_path, package_name, license, contract_file, build_tool, files)
		VALUES (gen_random_uuid(), $1, 0, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		RETURNING `+verificationJobCols+`),
		logged AS (INSERT INTO verification_job_log (job_id, status, worker) SELECT id, 0, 'api' FROM job)
		SELECT * FROM job`,
		j.ClassHash, j.Name, j.CompilerVersion, j.ScarbVersion, j.DojoVersion, j.ProjectDirPath, j.PackageName,
		j.License, j.ContractFile, j.BuildTool, string(files))
	if err != nil {
		return nil, err
	}
	return &job, nil
}

// VerificationJobByID returns nil when there is no job with that id (a canonical UUID).
func (s *Store) VerificationJobByID(ctx context.Context, id string) (*VerificationJob, error) {
	var job VerificationJob
	ok, err := s.getRow(ctx, &job, `SELECT `+verificationJobCols+` FROM verification_jobs WHERE id = $1`, id)
	if !ok {
		return nil, err
	}
	return &job, nil
}
