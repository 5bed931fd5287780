// The scheduler's key layout in Redis, said once: the TypeScript here reads keys through
// schedulerKeys(), and every Lua script gets the same layout as `K` (LUA_KEYS, prepended when the
// scripts are defined). Every key is under `<prefix>:sched:` (P), so one hash tag in the prefix
// keeps them on one Redis Cluster node.
//
//   <pool>:n:<account>, <pool>:l:<account>, <pool>:b:<account>  ZSET run -> created ms (normal,
//                  low and batch lane: batch items go only when no account has a run of the others)
//   <pool>:pn:<key>, <pool>:pl:<key>  ZSET run -> created ms: runs parked while their API key was at
//                  its own limit (they count as queued; they go back to their lane when it has room)
//   <pool>:ring    ZSET account -> pass (accounts with waiting runs: the fairness policy's turns)
//   <pool>:heads   ZSET account -> created ms of its oldest run in line (the pool's oldest waiting
//                  run in one read, however many accounts wait)
//   <pool>:passes  HASH account -> pass it left the ring with (it rejoins no earlier)
//   <pool>:meta    HASH vt (the pass of the last pick), queued (runs waiting, next runs included),
//                  warmn (weights each server keeps loaded), maxpassed (the longest warm routing
//                  passed over a run, ms), nextheld (the longest mean hold for next runs, ms)
//   <pool>:slots   SET slot ids (the capacity: healthy servers x concurrency, or render threads)
//   <pool>:busy    HASH slot -> run
//   serving        HASH server slot -> run, across every pool: a server's places are the server's,
//                  shared by every model that names it (ComfyUI workflows, a LocalAI or SGLang
//                  process serving several models, two catalogue entries of one Cog URL)
//   srvpools:<server>  SET pools whose slots are on the server (filled when one of its places frees)
//   <pool>:health  HASH server -> up | down, or down<TAB>its state (STARTING, HTTP 503, no answer)
//   <pool>:held    LIST how long the last 100 runs released held their slot (ms), newest first
//   <pool>:warmstats HASH h|m|l|hms|mms <TAB> server -> runs that found their weights loaded (hits),
//                  runs that did not (misses), weights loaded, and the ms runs of each held the slot
//   <pool>:batchruns SET batch items holding a place (meta batchrunning counts them; meta batchshare
//                  is the share of the places they may hold)
//   <pool>:passed  HASH account -> its oldest run <TAB> ms warm routing first passed it over
//   <pool>:duty    STRING the process doing the pool's periodic duty (health checks), with a TTL
//   warm:<server>  LIST the weights (sha256 prefixes) the server keeps loaded, newest first
//   wanted         HASH run -> the weights it loads (space-separated), while it waits
//   loaded         HASH run -> h | m (hit or miss) while it holds a slot, for the time it held it
//   waiting        HASH run -> pool \t account \t lane \t key
//   input          HASH run -> its input (JSON), when small: handed to its dispatch
//   lease          HASH run -> pool \t slot \t account \t leased ms \t key
//   leases         ZSET run -> expiry ms
//   deck           HASH slot -> its next run <TAB> created ms <TAB> lane: leased to the worker holding
//                  the slot's current run, which sends it as soon as that run's prediction ends
//                  (state.lua nextRuns); it keeps its waiting and input entries until then
//   running        HASH account -> leases held (all pools)
//   limit, weight  HASH account -> its concurrency limit and weight (written with its runs)
//   keyrunning     HASH key -> leases held by the key's runs
//   keylimit       HASH key -> the key's own concurrency limit (when it has one)
//   parked:<key>   SET pools where the key has parked runs
//   pools          SET pools known (their metrics, the periodic tick)
//   handoff:<lane> LIST runs the API's enqueue leased a slot, for a worker to take and execute where
//                  it is (BLPOP, handoff.ts): leased ms <TAB> run <TAB> slot <TAB> pool <TAB> input,
//                  lane interactive or batch; kept LEASED_JOB_GRACE_MS after the last push
//   interactive    a pub/sub CHANNEL, not a key: a pool's name, published by an enqueue whose normal
//                  or low run waits where batch items hold places (workers holding batch items as
//                  slots' next runs stop sending them first: state.lua nextRuns)

import type { JobLane } from "../jobs.js";

/** Keys shared by every pool. */
const GLOBAL = [
  "waiting",
  "input",
  "lease",
  "leases",
  "running",
  "limit",
  "weight",
  "keyrunning",
  "keylimit",
  "pools",
  "serving",
  "wanted",
  "loaded",
  "deck",
  "interactive",
] as const;
/** Keys of one pool, `<pool>:<name>`. */
type PoolKey =
  | "ring"
  | "heads"
  | "passes"
  | "meta"
  | "slots"
  | "busy"
  | "health"
  | "held"
  | "duty"
  | "warmstats"
  | "passed"
  | "batchruns";
/** A run's lane while it waits: normal or low. */
export type Lane = "n" | "l" | "b";

/** The fields of a `lease` entry, in order. */
export const LEASE_FIELDS = { pool: 0, slot: 1, account: 2, leasedAt: 3, key: 4 } as const;

export const schedulerRoot = (prefix: string) => `${prefix}:sched:`;

export function schedulerKeys(prefix: string) {
  const P = schedulerRoot(prefix);
  return {
    root: P,
    ...(Object.fromEntries(GLOBAL.map((name) => [name, P + name])) as Record<
      (typeof GLOBAL)[number],
      string
    >),
    pool: (pool: string, name: PoolKey) => `${P}${pool}:${name}`,
    warm: (server: string) => `${P}warm:${server}`,
    handoff: (lane: JobLane) => `${P}handoff:${lane}`,
  };
}

/**
 * The layout as Lua, for scripts that get the root as `P`: K.<global>, K.pool(pool, name),
 * K.lane(pool, lane, account), K.parked(pool, lane, key), K.parkedPools(key), K.serverPools(server), K.warm(server),
 * K.handoff(lane).
 */
export const LUA_KEYS = `local K = {}
${GLOBAL.map((name) => `K.${name} = P .. '${name}'`).join("\n")}
function K.pool(pool, name) return P .. pool .. ':' .. name end
function K.lane(pool, lane, account) return P .. pool .. ':' .. lane .. ':' .. account end
function K.parked(pool, lane, key) return P .. pool .. ':p' .. lane .. ':' .. key end
function K.parkedPools(key) return P .. 'parked:' .. key end
function K.serverPools(server) return P .. 'srvpools:' .. server end
function K.warm(server) return P .. 'warm:' .. server end
function K.handoff(lane) return P .. 'handoff:' .. lane end
`;
