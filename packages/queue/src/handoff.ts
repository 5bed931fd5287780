// The runs a process that executes none (the API) leases a slot to, handed to a worker without a
// job: the enqueue script pushes each onto its lane's list (scheduler keys, handoff:<lane>) with
// the lease's time on Redis's clock, and a worker pops it (BLPOP) and executes it where it is, as
// it executes the runs it leases itself. What a job cost such a run (the API's add, the worker's
// moveToActive and its fetch loop) is one pop.
import type { RedisClient } from "./redis.js";
import type { JobLane } from "./jobs.js";
import type { Dispatched } from "./scheduler/index.js";
import { schedulerKeys } from "./scheduler/keys.js";

/** A run taken from a hand-off list: when its slot was leased (ms, Redis's clock), and the run. */
export interface HandedOff {
  leasedAt: number;
  dispatched: Dispatched;
}

/** A lane's hand-off list (its key). */
export const handOffList = (prefix: string, lane: JobLane) => schedulerKeys(prefix).handoff(lane);

/** An entry as the enqueue script writes it (leased ms, run, slot, pool, input; tab-separated). */
export function parseHandedOff(value: string, lane: JobLane): HandedOff | null {
  const fields: string[] = [];
  let from = 0;
  // The input is last and whole (JSON has no raw tab, but nothing here relies on it).
  for (let i = 0; i < 4; i++) {
    const tab = value.indexOf("\t", from);
    if (tab < 0) return null;
    fields.push(value.slice(from, tab));
    from = tab + 1;
  }
  const [leasedAt, runId, slot, pool] = fields as [string, string, string, string];
  const input = value.slice(from);
  if (!/^\d+$/.test(leasedAt) || !runId || !slot || !pool) return null;
  return {
    leasedAt: Number(leasedAt),
    dispatched: {
      runId,
      slot,
      pool,
      ...(input && { input }),
      ...(lane === "batch" && { batch: true }),
    },
  };
}

/**
 * Waits up to `timeoutSeconds` for a run handed off in one of `lanes`, the first lane's before the
 * next's. `connection` is blocked meanwhile: one of its own. Null when none came (or the entry was
 * not one: nothing else writes these lists).
 */
export async function takeHandedOff(
  connection: RedisClient,
  prefix: string,
  lanes: readonly JobLane[],
  timeoutSeconds: number,
): Promise<HandedOff | null> {
  const popped = await connection.blpop(...lanes.map((lane) => handOffList(prefix, lane)), timeoutSeconds);
  if (!popped) return null;
  const [key, value] = popped;
  return parseHandedOff(value, lanes.find((lane) => handOffList(prefix, lane) === key) ?? "interactive");
}

/** Redis's clock less this process's (ms): an entry's age on this process's clock. */
export async function redisClockOffset(redis: RedisClient): Promise<number> {
  const before = Date.now();
  const [seconds, micros] = await redis.time();
  const after = Date.now();
  return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000) - (before + after) / 2;
}
