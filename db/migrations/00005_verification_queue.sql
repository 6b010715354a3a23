-- The verification queue: workers claim jobs with FOR UPDATE SKIP LOCKED and hold a lease
-- (lease_token, lease_until) that they renew while compiling. A job whose lease ran out
-- (its worker died) is claimed again; a state change is applied only by the holder of the
-- current lease, so a job is finished exactly once. verification_job_log records every
-- state change and the worker that made it.

-- +goose Up
ALTER TABLE verification_jobs
    ADD COLUMN lease_token         uuid,
    ADD COLUMN lease_until         timestamptz,
    ADD COLUMN worker              text,
    ADD COLUMN attempts            int NOT NULL DEFAULT 0,
    ADD COLUMN obtained_class_hash bytea,            -- the class hash the sources compiled to
    ADD COLUMN compiler_output     text,             -- trimmed; kept for CompileFailed
    ADD COLUMN finished_at         timestamptz;
DROP INDEX verification_jobs_pending;
CREATE INDEX verification_jobs_queue ON verification_jobs (created_at) WHERE status IN (0, 1, 5);

CREATE TABLE verification_job_log (
    job_id uuid NOT NULL REFERENCES verification_jobs (id) ON DELETE CASCADE,
    status smallint NOT NULL,
    worker text NOT NULL,
    at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX verification_job_log_job ON verification_job_log (job_id, at);

ALTER TABLE verified_classes
    ADD COLUMN build_tool       text,
    ADD COLUMN project_dir_path text,
    ADD COLUMN file_paths       text[] NOT NULL DEFAULT '{}', -- the keys of files, for pages that show no contents
    ADD COLUMN abi              jsonb,
    ADD COLUMN job_id           uuid;

-- +goose Down
ALTER TABLE verified_classes DROP COLUMN build_tool, DROP COLUMN project_dir_path, DROP COLUMN file_paths,
    DROP COLUMN abi, DROP COLUMN job_id;
DROP TABLE verification_job_log;
DROP INDEX verification_jobs_queue;
CREATE INDEX verification_jobs_pending ON verification_jobs (created_at) WHERE status IN (0, 5);
ALTER TABLE verification_jobs DROP COLUMN lease_token, DROP COLUMN lease_until, DROP COLUMN worker,
    DROP COLUMN attempts, DROP COLUMN obtained_class_hash, DROP COLUMN compiler_output, DROP COLUMN finished_at;
