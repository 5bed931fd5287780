-- The run path finds runs by id (start: id = ANY($ids) AND status IN (...)). With an index on
-- (status, created_at) the planner ANDed it with the primary key: a bitmap over every
-- QUEUED/EXECUTING entry, dead ones included until the next vacuum, so under steady load each
-- start read thousands of index entries more as the minute went on (Postgres CPU per run rose
-- from 1.0 to 2.5 ms in 40 s at 400 runs/s). Each sweep gets a partial index instead: it holds
-- only the runs that sweep looks for, and no run-path statement's conditions imply its predicate.
DROP INDEX "runs_status_created_at_idx";

-- Runs left QUEUED whose queue entry may be lost (sweeper), oldest first.
CREATE INDEX "runs_queued_created_at_idx" ON "runs" ("created_at") WHERE "status" = 'QUEUED';

-- EXECUTING runs past their deadline (sweeper: TIMEOUT).
CREATE INDEX "runs_executing_deadline_at_idx" ON "runs" ("deadline_at") WHERE "status" = 'EXECUTING';

-- Open runs past their Cancel-After deadline (sweeper: cancel).
CREATE INDEX "runs_open_cancel_at_idx" ON "runs" ("cancel_at")
  WHERE "cancel_at" IS NOT NULL AND "status" IN ('QUEUED', 'EXECUTING');
