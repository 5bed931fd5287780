// The scheduler's state in Redis: runs waiting for a model's capacity pool, per account and lane,
// the accounts' turns (the fairness policy: stride/), the pool's slots and the leases that hold
// them. Every change is one Lua script (lua/), so any number of API and worker processes share a
// pool's slots exactly; every script that can free a slot or add a waiting run dispatches in the
// same call, and answers with the runs it leased a slot to (the caller enqueues their jobs). The
// key layout is keys.ts.
import type { RedisClient } from "../redis.js";
import type { ChannelDefinition } from "../jobs.js";
import type { RunLane } from "@svc/core";
import { schedulerKeys, LEASE_FIELDS } from "./keys.js";
import { changingState, CLOCK, luaFile, withKeys } from "./lua.js";
import type { PolicyFactory } from "./policy.js";
import { stridePolicy } from "./stride/stride.js";

export { PLACE_RING_INLINE, RING_SNAPSHOT_MS } from "./stride/stride.js";
export type { SchedulingPolicy } from "./policy.js";

// The scripts that change a pool's state, by command name.
const CHANGING = {
  svcSchedEnqueue: "enqueue",
  svcSchedRelease: "release",
  svcSchedSetSlots: "setSlots",
  svcSchedAccounts: "accounts",
  svcSchedTick: "tick",
  svcSchedRemove: "remove",
  svcSchedRelocate: "relocate",
} as const;
const SOURCES = Object.fromEntries(
  Object.values(CHANGING).map((name) => [name, luaFile(`./lua/${name}.lua`)]),
) as Record<(typeof CHANGING)[keyof typeof CHANGING], string>;
const RENEW = withKeys(CLOCK, luaFile("./lua/renew.lua"));
const STATS = withKeys(luaFile("./lua/stats.lua"));

type Scripts = RedisClient & {
  svcSchedEnqueue(...args: (string | number)[]): Promise<string[]>;
  svcSchedRelease(...args: (string | number)[]): Promise<string[]>;
  svcSchedSetSlots(...args: (string | number)[]): Promise<string[]>;
  svcSchedAccounts(...args: (string | number)[]): Promise<string[]>;
  svcSchedTick(...args: (string | number)[]): Promise<string[]>;
  svcSchedRemove(...args: (string | number)[]): Promise<number>;
  svcSchedRenew(...args: (string | number)[]): Promise<string[]>;
  svcSchedStats(...args: string[]): Promise<[number, number, number, string, string[], string[], number]>;
  svcSchedRelocate(...args: (string | number)[]): Promise<string[] | null>;
};

function scripts(redis: RedisClient, policyLua: string): Scripts {
  // One policy per connection: the commands are defined with the first scheduler's.
  if (!("svcSchedEnqueue" in redis)) {
    // KEYS[1] is the key prefix, only so that Redis Cluster routes the script to the node of its
    // hash tag (every key it touches shares it); the scripts read the prefix from ARGV[1].
    const define = (name: string, lua: string) => redis.defineCommand(name, { numberOfKeys: 1, lua });
    for (const [command, name] of Object.entries(CHANGING))
      define(command, changingState(policyLua, SOURCES[name]));
    define("svcSchedRenew", RENEW);
    define("svcSchedStats", STATS);
  }
  return redis as Scripts;
}

/**
 * A normal or low run waits where batch items hold places (keys.ts `interactive`, published by the
 * enqueue script): the pool's name. Workers stop sending batch items first as slots' next runs.
 */
export const INTERACTIVE_WAITING_CHANNEL: ChannelDefinition = {
  name: (prefix) => schedulerKeys(prefix).interactive,
  accepts: (pool) => /^\S{1,500}$/.test(pool),
};

/** A run that got a slot: its job goes to the workers now. */
export interface Dispatched {
  runId: string;
  slot: string;
  pool: string;
  /** Its input, when it was small enough to wait with it: the worker can send it before the start commits. */
  input?: string;
  /**
   * A batch item (the batch lane): its job goes to the batch lane's queues (WORKER_LANES); as a
   * slot's next run, it is sent first only while no interactive run waits.
   */
  batch?: boolean;
  /** When its slot was leased (ms, this process's clock), when it was leased elsewhere: a run handed off. */
  leasedAt?: number;
}

export interface WaitingRun {
  runId: string;
  pool: string;
  accountId: string;
  createdAt: Date;
  priority: RunLane;
  /** The account's weight and concurrency limit (null: the default), as the database has them. */
  weight: number;
  maxConcurrentRuns: number | null;
  /** The API key that made it, and that key's own concurrency limit (null: none). */
  keyId: string;
  keyMaxConcurrentRuns: number | null;
  /** Its input as JSON, kept while it waits when small (INPUT_KEPT_MAX_BYTES). */
  input?: string;
  /** The weights it loads (their sha256), for warm routing: only where the pool's servers keep some. */
  weights?: readonly string[];
  /**
   * Its kind is executed by the worker that leases its slot (core's executesWhereLeased): leased
   * by a caller that executes no runs (the API), it is handed to a worker (enqueue's `handOffMs`).
   */
  executesWhereLeased?: boolean;
}

/** The largest input kept with a waiting run (a million waiting runs then hold at most 2 GB). */
export const INPUT_KEPT_MAX_BYTES = 2_048;

export interface PoolStats {
  capacity: number;
  leased: number;
  queued: number;
  /** Creation time of the run waiting longest, null when none waits. */
  oldestQueuedAt: Date | null;
  /** When the run on each busy slot of the capacity was leased its slot (ms). */
  busySince: number[];
  /** How long the last runs that gave their slot back held it (ms), newest first. */
  held: number[];
  /**
   * Slots holding a next run that is not a batch item (state.lua nextRuns): it waits, counted in
   * `queued`, and starts before any run in line.
   */
  nextRuns: number;
}

export interface SchedulerSettings {
  leaseMs: number;
  /** ACCOUNT_MAX_CONCURRENT_RUNS. */
  defaultLimit: number;
  /**
   * WEIGHTS_ROUTING_WAIT_MS: how long warm routing may pass over an account's oldest run for
   * one whose weights a free server holds; null: routing off (runs go oldest first).
   */
  warmWaitMs?: number | null;
}

/** A server's weights figures in a pool, counted since the scheduler's state began. */
export interface WarmStats {
  server: string;
  /** Runs that found every weights they name loaded on the server, and runs that did not. */
  hits: number;
  misses: number;
  /** Weights the server had to load. */
  loads: number;
  /** How long the hits and the misses held their slot (ms, summed). */
  hitMs: number;
  missMs: number;
}

/** The length of the shas the scheduler keeps (64 bits of sha256: no collision among a catalogue's weights). */
const WARM_KEY_LENGTH = 16;

/**
 * A script's answer: (run, slot, pool, input or '', kind) quints, kind '' for a run leased a slot
 * and 'B' for one that is a batch item, 'n' for a slot's next run and 'b' for one that is a batch
 * item.
 */
function answer(flat: string[]): { dispatched: Dispatched[]; next: Dispatched[] } {
  const dispatched: Dispatched[] = [];
  const next: Dispatched[] = [];
  for (let i = 0; i + 4 < flat.length; i += 5) {
    const kind = flat[i + 4];
    (kind === "n" || kind === "b" ? next : dispatched).push({
      runId: flat[i]!,
      slot: flat[i + 1]!,
      pool: flat[i + 2]!,
      ...(flat[i + 3] && { input: flat[i + 3] }),
      ...((kind === "b" || kind === "B") && { batch: true }),
    });
  }
  return { dispatched, next };
}
const leased = (flat: string[]) => answer(flat).dispatched;
/** What a release answers (scheduler.release). */
export interface Released {
  /** Runs leased a slot now: the caller sends their work and launches them. */
  dispatched: Dispatched[];
  /**
   * Slots' next runs (only to a caller that keeps them): each is leased the slot of the run this
   * answer gave the caller on it, and goes there when that run releases the slot, as a claim.
   */
  next: Dispatched[];
  /** Claimed next runs that did not get their slot (their lease lapsed): their work is withdrawn. */
  rejected: string[];
  /**
   * For the pools whose slots the call freed where batch items hold places (to a caller that keeps
   * next runs): whether a normal or low run waits there. While one does, a batch item that is a slot's next run is not sent
   * before the release: the release gives the place to the interactive run.
   */
  interactiveWaiting: Map<string, boolean>;
}

/**
 * The release script's answer: the leased runs' quints, then (pool, '1' or '0') pairs joined by
 * tabs (interactive runs waiting), then the rejected claims joined by tabs.
 */
function released(flat: string[]): Released {
  const rejected = flat.pop();
  const pairs = flat.pop()?.split("\t") ?? [];
  const interactiveWaiting = new Map<string, boolean>();
  for (let i = 0; i + 1 < pairs.length; i += 2) interactiveWaiting.set(pairs[i]!, pairs[i + 1] === "1");
  return { ...answer(flat), rejected: rejected ? rejected.split("\t") : [], interactiveWaiting };
}

/** A waiting run as the enqueue script reads it (short keys: one JSON argument per batch). */
const waitingRunPayload = (run: WaitingRun, handOff: boolean) => ({
  r: run.runId,
  p: run.pool,
  a: run.accountId,
  t: run.createdAt.getTime(),
  l: run.priority === "low" ? "l" : run.priority === "batch" ? "b" : "n",
  w: run.weight,
  c: run.maxConcurrentRuns,
  k: run.keyId,
  kc: run.keyMaxConcurrentRuns,
  ...(run.input !== undefined && run.input.length <= INPUT_KEPT_MAX_BYTES && { i: run.input }),
  ...(run.weights?.length && { wt: run.weights.map((w) => w.slice(0, WARM_KEY_LENGTH)).join(" ") }),
  ...(handOff && run.executesWhereLeased && { h: true }),
});

function warmStats(flat: Record<string, string>): WarmStats[] {
  const by = new Map<string, WarmStats>();
  const field = { h: "hits", m: "misses", l: "loads", hms: "hitMs", mms: "missMs" } as const;
  for (const [name, value] of Object.entries(flat)) {
    const [kind, server] = name.split("\t") as [keyof typeof field, string];
    if (!server || !(kind in field)) continue;
    const entry = by.get(server) ?? { server, hits: 0, misses: 0, loads: 0, hitMs: 0, missMs: 0 };
    entry[field[kind]] = Number(value);
    by.set(server, entry);
  }
  return [...by.values()];
}

/** An account's weight and limits, and its keys', as the database has them now. */
export interface AccountLimits {
  accountId: string;
  weight: number;
  maxConcurrentRuns: number | null;
  pools: string[];
  keys: { keyId: string; maxConcurrentRuns: number | null }[];
}

const accountPayload = (a: AccountLimits) => ({
  a: a.accountId,
  w: a.weight,
  c: a.maxConcurrentRuns,
  p: a.pools,
  k: a.keys.map((k) => ({ k: k.keyId, c: k.maxConcurrentRuns })),
});

function poolStats([capacity, leased, queued, oldest, since, held, nextRuns]: [
  number,
  number,
  number,
  string,
  string[],
  string[],
  number,
]): PoolStats {
  return {
    capacity: Number(capacity),
    leased: Number(leased),
    queued: Math.max(0, Number(queued)),
    oldestQueuedAt: oldest ? new Date(Number(oldest)) : null,
    busySince: since.map(Number).filter(Number.isFinite),
    held: held.map(Number).filter(Number.isFinite),
    nextRuns: Number(nextRuns ?? 0),
  };
}

/**
 * A run's place from its waiting entry and its lease (slot and time, tab-separated). A slot's next
 * run has both: it waits (for the slot's current run), and its lease is not yet the slot's.
 */
const runState = (waiting: string | null, lease: string | null) => {
  const slotted = lease !== null && waiting === null;
  return {
    waiting: waiting !== null,
    slot: slotted ? lease.split("\t")[LEASE_FIELDS.slot]! : null,
    leasedAt: slotted ? Number(lease.split("\t")[LEASE_FIELDS.leasedAt]) : null,
  };
};

export type Scheduler = ReturnType<typeof redisScheduler>;

export function redisScheduler(
  redis: RedisClient,
  prefix: string,
  settings: SchedulerSettings,
  policyOf: PolicyFactory = stridePolicy,
) {
  const K = schedulerKeys(prefix);
  const P = K.root;
  const policy = policyOf(redis, P);
  const r = scripts(redis, policy.lua);
  const head = () => [P, P, settings.leaseMs, settings.defaultLimit, settings.warmWaitMs ?? -1] as const;
  /**
   * Frees the runs' slots (idempotent) and dispatches into them; a slot's next run takes it at
   * once. `keepNext`: the caller executes the runs it is leased itself, so each slot this call
   * gives it may get a next run (`next`); `claimed`: next runs it already sent to the slots being
   * freed.
   */
  async function handOver(
    runIds: readonly string[],
    opts: { keepNext?: boolean; claimed?: readonly string[] } = {},
  ): Promise<Released> {
    const claimed = opts.claimed ?? [];
    if (!runIds.length && !claimed.length) return released(["", ""]);
    return released(
      await r.svcSchedRelease(...head(), opts.keepNext ? "1" : "0", runIds.length, ...runIds, ...claimed),
    );
  }
  return {
    /**
     * Adds runs to their pools' queues and dispatches; the runs (of any pool) that got a slot.
     * `handOffMs`, from a caller that executes no runs: the runs leased in the pools of those that
     * execute where leased go to the hand-off lists instead (handoff.ts), kept that long untaken.
     */
    async enqueue(runs: readonly WaitingRun[], handOffMs?: number): Promise<Dispatched[]> {
      if (!runs.length) return [];
      const payload = JSON.stringify(runs.map((run) => waitingRunPayload(run, handOffMs !== undefined)));
      return leased(await r.svcSchedEnqueue(...head(), payload, handOffMs ?? 0));
    },
    /** Frees the runs' slots (idempotent) and dispatches into them; the runs leased. */
    async release(runIds: readonly string[]): Promise<Dispatched[]> {
      return (await handOver(runIds)).dispatched;
    },
    handOver,
    /**
     * An account's weight and limit, and its keys' limits, as the database has them now, for
     * accounts with runs waiting in `pools`; dispatches what a higher limit or weight allows at once.
     */
    async refreshAccounts(accounts: readonly AccountLimits[]): Promise<Dispatched[]> {
      if (!accounts.length) return [];
      return leased(await r.svcSchedAccounts(...head(), JSON.stringify(accounts.map(accountPayload))));
    },
    /**
     * Sets a pool's slots (its capacity now), how many weights each of its servers keeps loaded
     * (0: its runs load none) and the longest mean hold (ms) under which its slots keep a next
     * run (0: never), and dispatches into any slots that are free.
     */
    async setSlots(
      pool: string,
      slots: readonly string[],
      warmWeights = 0,
      nextHeldMs = 0,
    ): Promise<Dispatched[]> {
      return leased(await r.svcSchedSetSlots(...head(), pool, warmWeights, nextHeldMs, ...slots));
    },
    /** Gives back expired leases, fills the pools; also when the next lease expires (ms), if any. */
    async tick(pools: readonly string[]): Promise<{ dispatched: Dispatched[]; nextExpiry: number | null }> {
      const flat = await r.svcSchedTick(...head(), ...pools);
      const last = flat.pop();
      return { dispatched: leased(flat), nextExpiry: last ? Number(last) : null };
    },
    /** Takes runs out of their queues (canceled while waiting); how many were waiting. */
    async remove(runIds: readonly string[]): Promise<number> {
      if (!runIds.length) return 0;
      return r.svcSchedRemove(...head(), ...runIds);
    },
    /** Extends the leases of runs this worker executes; those that still hold one. */
    async renew(runIds: readonly string[]): Promise<string[]> {
      if (!runIds.length) return [];
      return r.svcSchedRenew(P, P, settings.leaseMs, ...runIds);
    },
    /**
     * Moves a run to a free slot on a server not in `avoid`; the slot (null when none is free) and
     * the run that took the old one (its next run), whose work the caller sends.
     */
    async relocate(
      runId: string,
      avoid: readonly string[],
    ): Promise<{ slot: string; dispatched: Dispatched[] } | null> {
      const flat = await r.svcSchedRelocate(...head(), runId, avoid.join("\t"));
      if (!flat) return null;
      const [slot, ...rest] = flat;
      return { slot: slot!, dispatched: leased(rest) };
    },
    /** How many runs of the pool start before a waiting run (the policy's order); null when not waiting. */
    runsBefore: (pool: string, runId: string) => policy.runsBefore(pool, runId),
    async stats(pool: string): Promise<PoolStats> {
      return poolStats(await r.svcSchedStats(P, P, pool));
    },
    /** The share of the pool's places batch items may hold (BATCH_MAX_SHARE_PERCENT / 100). */
    async setBatchShare(pool: string, share: number): Promise<void> {
      await redis.hset(K.pool(pool, "meta"), "batchshare", share);
    },
    /** Each server's weights figures in the pool (warm routing's hits, misses and loads). */
    async warmStats(pool: string): Promise<{ servers: WarmStats[]; maxPassedMs: number }> {
      const [flat, passed] = await Promise.all([
        redis.hgetall(K.pool(pool, "warmstats")),
        redis.hget(K.pool(pool, "meta"), "maxpassed"),
      ]);
      return { servers: warmStats(flat), maxPassedMs: Number(passed ?? 0) };
    },
    /** Pools that have had runs or slots. */
    pools: (): Promise<string[]> => redis.smembers(K.pools),
    /** Where runs stand: waiting, leased (with the slot and when, ms), or neither. */
    async states(
      runIds: readonly string[],
    ): Promise<Map<string, { waiting: boolean; slot: string | null; leasedAt: number | null }>> {
      if (!runIds.length) return new Map();
      const [waiting, leases] = await Promise.all([
        redis.hmget(K.waiting, ...runIds),
        redis.hmget(K.lease, ...runIds),
      ]);
      return new Map(runIds.map((id, i) => [id, runState(waiting[i] ?? null, leases[i] ?? null)]));
    },
    /** When a run's lease was granted (ms), for the dispatch latency; null when it holds none. */
    async leasedAt(runId: string): Promise<number | null> {
      const v = await redis.hget(K.lease, runId);
      return v ? Number(v.split("\t")[LEASE_FIELDS.leasedAt]) : null;
    },
    /** A server's health as the pool's monitor last saw it: up, or down with its state. */
    async setHealth(pool: string, server: string, up: boolean, state = ""): Promise<void> {
      await redis.hset(K.pool(pool, "health"), server, up ? "up" : `down${state ? `\t${state}` : ""}`);
    },
    async health(pool: string): Promise<Record<string, string>> {
      return redis.hgetall(K.pool(pool, "health"));
    },
    /** One process per pool at a time does a periodic duty (health checks): true when it is this one. */
    async claimDuty(pool: string, ms: number): Promise<boolean> {
      return (await redis.set(K.pool(pool, "duty"), "1", "PX", ms, "NX")) === "OK";
    },
  };
}
