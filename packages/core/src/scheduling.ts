// Scheduling maths: pools' slots, the stride order and where a waiting run stands in it, start
// estimates. Pure rules; the state lives in Redis (packages/queue/src/scheduler), whose stride
// policy (stride/policy.lua) applies the same order atomically.

export const RUN_PRIORITIES = ["normal", "low"] as const;
export type RunPriority = (typeof RUN_PRIORITIES)[number];
/** Where a run waits: the priority its caller chose, or the batch lane (a batch's items, issue #61). */
export type RunLane = RunPriority | "batch";

/**
 * A model's capacity pool (its runner kind's, runnerKinds.ts). `servers`: model servers, each
 * with `concurrency` slots, a slot bound to its server. `workers`: as many slots as the live
 * workers have render threads. null: unlimited: its runs start as soon as a worker is free.
 */
export type PoolSpec =
  | {
      kind: "servers";
      servers: readonly string[];
      concurrency: number;
      healthIntervalMs: number;
      /** How many weights (LoRAs) each server keeps loaded, for warm routing; 0: its runs load none. */
      warmWeights: number;
    }
  | { kind: "workers" }
  | null;

/** A slot's id: `<server>#<n>` for a server's slots, `worker#<n>` for render threads. */
export function poolSlots(
  pool: NonNullable<PoolSpec>,
  healthy: readonly string[],
  threads: number,
): string[] {
  if (pool.kind === "workers") return Array.from({ length: threads }, (_, i) => `worker#${i}`);
  return healthy.flatMap((server) => Array.from({ length: pool.concurrency }, (_, i) => `${server}#${i}`));
}

/** The server a slot is bound to (null for a render-thread slot). */
export const serverOfSlot = (slot: string): string | null =>
  slot.startsWith("worker#") ? null : slot.slice(0, slot.lastIndexOf("#"));

/**
 * Weighted round robin as stride scheduling: every account waiting for a pool has a pass; the next
 * run comes from the account with the lowest pass (ties: the smaller account id), which then
 * advances by its stride, STRIDE / weight. An account that starts waiting joins at the pool's
 * current pass, so time spent idle earns no burst later. Integers keep Lua and JS exact.
 */
export const STRIDE = 1_000_000;
export const strideOf = (weight: number): number => Math.max(1, Math.round(STRIDE / Math.max(1, weight)));

export interface WaitingAccount {
  accountId: string;
  pass: number;
  weight: number;
  /** Runs it has waiting (both lanes). */
  waiting: number;
}

/**
 * How many runs of the pool start before the run at `index` (0: the next) of `own`'s waiting runs
 * (its normal lane, then its low lane), if accounts take their turns by pass: the number of every
 * account's picks that come before this run's pick. Accounts held back by their concurrency limit
 * only make this an upper bound (their turns go to others).
 */
export function runsBefore(own: WaitingAccount, index: number, accounts: readonly WaitingAccount[]): number {
  const at = own.pass + index * strideOf(own.weight);
  let before = index;
  for (const other of accounts) {
    if (other.accountId === own.accountId || other.waiting <= 0) continue;
    const stride = strideOf(other.weight);
    // Picks j with pass + j*stride < at, or equal to it and the account first by id.
    const gap = at - other.pass;
    let picks = gap <= 0 ? 0 : Math.ceil(gap / stride);
    if (gap >= 0 && gap % stride === 0 && other.accountId < own.accountId) picks++;
    before += Math.min(other.waiting, Math.max(0, picks));
  }
  return before;
}

/** An account's limit of runs executing at once on limited pools. */
export const concurrencyLimit = (account: { maxConcurrentRuns: number | null }, fallback: number) =>
  account.maxConcurrentRuns ?? fallback;

/** Jain's fairness index of the shares (1: perfectly even; 1/n: one takes everything). */
export function jainIndex(shares: readonly number[]): number {
  const sum = shares.reduce((a, b) => a + b, 0);
  const squares = shares.reduce((a, b) => a + b * b, 0);
  return squares === 0 ? 1 : (sum * sum) / (shares.length * squares);
}

export interface QueueSnapshot {
  /** Slots of the pool (or of the live workers, for unlimited models), and how many are busy. */
  capacity: number;
  executing: number;
  /** Typical execution time of recent runs, null when none finished lately. */
  meanRunMs: number | null;
  /**
   * How long each busy slot's run has been executing (ms), when the pool knows it (a model's
   * capacity pool keeps each lease's start; the workers' run slots of unlimited models do not).
   */
  busyForMs?: readonly number[];
}

/**
 * When a queued run should start, `ahead` runs starting before it (runsBefore, or for unlimited
 * models the runs created before it). Null when no worker is alive or no run finished lately:
 * there is nothing honest to say.
 *
 * With each busy slot's run time so far, a slot frees when its run has run the typical time (at
 * once, if it has run longer) and a free slot now. Those times all lie within one run time of
 * now, so the slot that frees i-th takes the waiting runs i, i + capacity, i + 2 x capacity...,
 * one run time apart. Without them, free slots take runs at once and the rest start in waves of
 * `capacity`, one every run time, the running wave on average half done.
 */
export function estimateStartMs(ahead: number, queue: QueueSnapshot): number | null {
  const { capacity, meanRunMs: runMs, busyForMs } = queue;
  if (capacity <= 0 || runMs === null) return null;
  const wave = Math.floor(ahead / capacity);
  if (busyForMs) {
    const frees = Array.from({ length: capacity }, (_, slot) =>
      slot < busyForMs.length ? Math.max(0, runMs - busyForMs[slot]!) : 0,
    ).sort((a, b) => a - b);
    return Math.round(frees[ahead % capacity]! + wave * runMs);
  }
  const free = Math.max(0, capacity - queue.executing);
  if (ahead < free) return 0;
  return Math.round((Math.floor((ahead - free) / capacity) + 0.5) * runMs);
}

/** The median of recent run times, null when there are none. */
export function median(values: readonly number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}
