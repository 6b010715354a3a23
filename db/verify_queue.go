package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// The worker side of class verification: a queue in the verification_jobs table. A worker
// claims the oldest job that is waiting (status 0) or whose lease ran out (its worker
// died), with FOR UPDATE SKIP LOCKED so that workers never wait on each other. Every later
// change is made only by the holder of the job's current lease token: a worker that lost
// its lease can no longer move or finish the job, so each job is finished exactly once.

// Verification job statuses, as the explorer API numbers them.
const (
	JobSubmitted     = 0
	JobCompiled      = 1
	JobCompileFailed = 2
	JobFail          = 3
	JobSuccess       = 4
	JobProcessing    = 5
)

// ErrLeaseLost says that another worker holds the job now (this one's lease ran out).
var ErrLeaseLost = errors.New("verification job lease lost")

// ClaimedJob is a verification job as a worker sees it: what it needs to compile.
type ClaimedJob struct {
	ID              string  `db:"id"`
	ClassHash       Felt    `db:"class_hash"`
	Name            string  `db:"name"`
	CompilerVersion string  `db:"compiler_version"`
	ScarbVersion    string  `db:"scarb_version"`
	ProjectDirPath  string  `db:"project_dir_path"`
	PackageName     string  `db:"package_name"`
	License         *string `db:"license"`
	ContractFile    string  `db:"contract_file"`
	BuildTool       string  `db:"build_tool"`
	Files           JSON    `db:"files"`
	LeaseToken      string  `db:"lease_token"`
	Attempts        int     `db:"attempts"`
}

// VerifyQueue is the verification queue in PostgreSQL.
type VerifyQueue struct {
	DB *sqlx.DB
}

// Claim takes the oldest job that is waiting or whose lease has expired, moves it to
// Processing under a new lease of the given length, and returns it; nil when there is none.
func (q VerifyQueue) Claim(ctx context.Context, worker string, lease time.Duration) (*ClaimedJob, error) {
	var job ClaimedJob
	err := q.DB.GetContext(ctx, &job, `WITH next AS (
			SELECT id FROM verification_jobs
			WHERE status = 0 OR (status IN (1, 5) AND lease_until < now())
			ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED),
		claimed AS (
			UPDATE verification_jobs j SET status = 5, lease_token = gen_random_uuid(),
				lease_until = now() + make_interval(secs => $2), worker = $1,
				attempts = j.attempts + 1, updated_at = now()
			FROM next WHERE j.id = next.id
			RETURNING j.*),
		logged AS (INSERT INTO verification_job_log (job_id, status, worker) SELECT id, 5, $1 FROM claimed)
		SELECT id, class_hash, coalesce(name, '') AS name, coalesce(compiler_version, '') AS compiler_version,
			coalesce(scarb_version, '') AS scarb_version, coalesce(project_dir_path, '') AS project_dir_path,
			coalesce(package_name, '') AS package_name, license, coalesce(contract_file, '') AS contract_file,
			coalesce(build_tool, '') AS build_tool, files, lease_token, attempts
		FROM claimed`, worker, lease.Seconds())
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim verification job: %w", err)
	}
	return &job, nil
}

// Renew extends the lease of a job this worker holds; ErrLeaseLost when it holds it no more.
func (q VerifyQueue) Renew(ctx context.Context, job *ClaimedJob, lease time.Duration) error {
	res, err := q.DB.ExecContext(ctx, `UPDATE verification_jobs SET lease_until = now() + make_interval(secs => $3)
		WHERE id = $1 AND lease_token = $2 AND status IN (1, 5)`, job.ID, job.LeaseToken, lease.Seconds())
	return leaseResult(res, err)
}

// Release gives a job back to the queue (Submitted) when its worker stops in good order,
// so that it is taken again at once rather than when the lease runs out.
func (q VerifyQueue) Release(ctx context.Context, job *ClaimedJob, worker string) error {
	res, err := q.DB.ExecContext(ctx, `WITH released AS (
			UPDATE verification_jobs SET status = 0, lease_token = NULL, lease_until = NULL, updated_at = now()
			WHERE id = $1 AND lease_token = $2 AND status IN (1, 5) RETURNING id)
		INSERT INTO verification_job_log (job_id, status, worker) SELECT id, 0, $3 FROM released`,
		job.ID, job.LeaseToken, worker)
	return leaseResult(res, err)
}

// JobOutcome is what a worker records when it moves a job on.
type JobOutcome struct {
	Status         int
	Message        string
	ObtainedHash   Felt   // the class hash the sources compiled to, when known
	CompilerOutput string // the compiler's words, for CompileFailed
}

// Move records a job's next status (Compiled, CompileFailed or Fail) if this worker still
// holds its lease. CompileFailed and Fail finish the job.
func (q VerifyQueue) Move(ctx context.Context, job *ClaimedJob, worker string, o JobOutcome) error {
	tx, err := q.DB.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := moveJob(ctx, tx, job, worker, o); err != nil {
		return err
	}
	return tx.Commit()
}

func moveJob(ctx context.Context, tx *sqlx.Tx, job *ClaimedJob, worker string, o JobOutcome) error {
	final := o.Status == JobCompileFailed || o.Status == JobFail || o.Status == JobSuccess
	res, err := tx.ExecContext(ctx, `UPDATE verification_jobs SET status = $3, message = $4,
			obtained_class_hash = coalesce($5, obtained_class_hash), compiler_output = coalesce($6, compiler_output),
			updated_at = now(),
			finished_at = CASE WHEN $7 THEN now() END,
			lease_until = CASE WHEN $7 THEN NULL ELSE lease_until END,
			lease_token = CASE WHEN $7 THEN NULL ELSE lease_token END
		WHERE id = $1 AND lease_token = $2 AND status IN (1, 5)`,
		job.ID, job.LeaseToken, o.Status, nullString(o.Message), nullFelt(o.ObtainedHash), nullString(cleanText(o.CompilerOutput)), final)
	if err := leaseResult(res, err); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO verification_job_log (job_id, status, worker) VALUES ($1, $2, $3)`,
		job.ID, o.Status, worker)
	return err
}

// Succeed finishes a job with Success, in one transaction with the class's verified
// record (name, package, licence, versions, files, abi: the compiled class's ABI), the
// verified-classes count and, where the chain gave the class no ABI, the verified one
// (which then decodes its calls). A class verified before keeps its first record.
func (q VerifyQueue) Succeed(ctx context.Context, job *ClaimedJob, worker string, message string, abi JSON) error {
	tx, err := q.DB.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := moveJob(ctx, tx, job, worker, JobOutcome{Status: JobSuccess, Message: message, ObtainedHash: job.ClassHash}); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO verified_classes (class_hash, name, verified_at, compiler_version,
			scarb_version, license, package_name, contract_file, files, file_paths, build_tool, project_dir_path, abi, job_id)
		SELECT class_hash, name, extract(epoch FROM now())::bigint, compiler_version, scarb_version, license,
			package_name, contract_file, files, ARRAY(SELECT jsonb_object_keys(files) ORDER BY 1),
			coalesce(build_tool, 'scarb'), project_dir_path, $2, id
		FROM verification_jobs WHERE id = $1
		ON CONFLICT (class_hash) DO NOTHING`, job.ID, nullJSON(abi))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		if err := AddListCounts(ctx, tx, map[string]int64{"verified_classes": 1}); err != nil {
			return err
		}
		if abi != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE classes SET abi = $2
				WHERE hash = $1 AND (abi IS NULL OR abi = 'null'::jsonb OR abi = '[]'::jsonb)`, job.ClassHash, abi); err != nil {
				return err
			}
		}
	}
	return commitNames(tx) // the class's name shows at once in this process
}

func leaseResult(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrLeaseLost
	}
	return nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullFelt(f Felt) any {
	if f == nil {
		return nil
	}
	return f
}

func nullJSON(j JSON) any {
	if len(j) == 0 {
		return nil
	}
	return string(j)
}
