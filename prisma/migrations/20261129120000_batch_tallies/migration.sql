-- A batch's tally (issue #61): its counts kept on its row by the statements that move its lines
-- and runs, so that reading them is one row rather than a scan of every line joined to its run.
-- AlterTable
ALTER TABLE "batches" ADD COLUMN     "admitted" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "dropped" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "runs_completed" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "runs_failed" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "tokens_charged" INTEGER NOT NULL DEFAULT 0;

-- The batches made before: their lines counted once, their runs' ends by the runs themselves (as
-- the settlement counts them from now on).
UPDATE "batches" b SET
  "admitted" = l.admitted,
  "dropped" = l.dropped
FROM (
  SELECT batch_id,
         count(*) FILTER (WHERE state = 'admitted')::int AS admitted,
         count(*) FILTER (WHERE state IN ('refused', 'canceled', 'expired'))::int AS dropped
  FROM "batch_items" GROUP BY batch_id
) l
WHERE b.id = l.batch_id;

UPDATE "batches" b SET
  "runs_completed" = r.completed,
  "runs_failed" = r.failed,
  "tokens_charged" = r.tokens
FROM (
  SELECT batch_id,
         count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed,
         count(*) FILTER (WHERE status IN ('FAILED', 'CANCELED'))::int AS failed,
         COALESCE(sum(tokens_charged), 0)::int AS tokens
  FROM "runs" WHERE batch_id IS NOT NULL GROUP BY batch_id
) r
WHERE b.id = r.batch_id;
