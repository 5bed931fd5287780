-- The ids of a batch of runs, once each, in id order: the run path locks a batch's runs by probing
-- the primary key for each id in this order (the one lock order of every statement that locks
-- several runs). ROWS 1 is what the planner assumes a batch holds: every plan built on it probes
-- the primary key per id, whatever the table's size was when the plan was cached. Planned on the
-- table's size instead, a statement prepared while the table was new (before its first analyze)
-- scanned or hashed every run for each batch until autovacuum analyzed the table, up to a minute
-- later. STRICT keeps the function from being inlined (which would drop its ROWS).
CREATE FUNCTION svc_sorted_ids(ids TEXT[]) RETURNS SETOF TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE ROWS 1 AS $$
  SELECT DISTINCT id FROM unnest(ids) AS id ORDER BY id
$$;
