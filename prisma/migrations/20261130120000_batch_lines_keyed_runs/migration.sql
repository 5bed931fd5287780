-- Batch lines are now admitted by the statement that makes their run (issue #61). Before, the run
-- was made under the Idempotency-Key batch:<batch id>:<line> and a second statement marked the
-- line: a feeder killed between the two left a line without its mark whose run exists, which the
-- next pass of the code before found by its key. The code from now on would make that line a
-- second run: such lines are admitted to the run they have, as that pass would have done.
WITH keyed AS (
  SELECT i.batch_id, i.line, i.state, r.id AS run_id
  FROM "batch_items" i
  JOIN "runs" r ON r.batch_id = i.batch_id AND r.idempotency_key = 'batch:' || i.batch_id || ':' || i.line
  WHERE i.state IN ('pending', 'refused', 'canceled', 'expired')
), moved AS (
  UPDATE "batch_items" i SET state = 'admitted', run_id = k.run_id, error = NULL
  FROM keyed k WHERE i.batch_id = k.batch_id AND i.line = k.line
)
UPDATE "batches" b SET
  "admitted" = b.admitted + c.admitted,
  "dropped" = b.dropped - c.dropped
FROM (
  SELECT batch_id, count(*)::int AS admitted, count(*) FILTER (WHERE state <> 'pending')::int AS dropped
  FROM keyed GROUP BY batch_id
) c
WHERE b.id = c.batch_id;
