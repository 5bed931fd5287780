// The batch feeder (issue #61): feed passes (use-cases feedBatches: items admitted into free
// places, batches expired and moved on) every BATCH_FEED_INTERVAL_MS, and at once when this worker
// ended a run of a model whose items in flight (as the last pass left them, less the runs ended
// here since) fell below an interval's worth (batchFeed's refillBelow), so that its places never
// run dry between passes. One pass at a time across workers (a lock in Redis held for the pass),
// and one at a time here (nudges during a pass make one more after it).
import { randomUUID } from "node:crypto";
import { enqueueDeliveries } from "@svc/queue";
import { feedBatches, type FedModel } from "@svc/use-cases";
import type { WorkerDeps } from "../deps.js";
import type { AssembledWorker } from "../assembly.js";

/** Longest a pass may hold the lock (a worker that dies mid-pass frees it by then). */
const LOCK_MS = 10_000;
/** The least time between passes a run's end asks for. */
const NUDGE_MS = 50;
const UNLOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

export function startBatchFeeder({ config, db, redis, logger }: WorkerDeps, parts: AssembledWorker) {
  const lockKey = `${config.QUEUE_PREFIX}:batch-feed`;
  /** Models with batches admitting items, as the last pass left them. */
  let models = new Map<string, FedModel>();
  const deps = {
    db,
    runs: parts.lifecycle,
    places: async (modelId: string) => {
      // The scheduler keeps batch items to the share; told each pass (a setting may change).
      await parts.scheduler.setBatchShare(modelId, config.BATCH_MAX_SHARE_PERCENT / 100);
      const stats = await parts.scheduler.stats(modelId);
      const held = [...stats.held].sort((a, b) => a - b);
      const heldMs = held.length ? held[Math.floor(held.length / 2)]! : null;
      return { capacity: stats.capacity, heldMs };
    },
    settings: {
      share: config.BATCH_MAX_SHARE_PERCENT / 100,
      unlimited: config.BATCH_UNPOOLED_IN_FLIGHT,
      intervalMs: config.BATCH_FEED_INTERVAL_MS,
    },
    logger,
    deliveries: (ids: readonly string[]) => enqueueDeliveries(parts.queues.deliveries, ids),
  };
  const once = async () => {
    lastPass = Date.now();
    const token = randomUUID();
    if ((await redis.set(lockKey, token, "PX", LOCK_MS, "NX")) !== "OK") return;
    try {
      models = await feedBatches(deps);
    } finally {
      await redis.eval(UNLOCK, 1, lockKey, token).catch(() => {});
    }
  };
  let running: Promise<void> | undefined;
  let again = false;
  const pass = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await once();
        } while (again);
      } catch (error) {
        logger.warn("batch feed pass failed", { error });
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  // A run of a model with batches open ended here: a pass now once less than an interval's worth
  // is left in flight, unless one began within the last NUDGE_MS. Runs ended by other workers are
  // not counted here: the interval's pass covers them (what is admitted lasts two intervals).
  let lastPass = 0;
  parts.runEnds.listener = (modelId) => {
    const fed = models.get(modelId);
    if (fed && --fed.inFlight < fed.refillBelow && Date.now() - lastPass >= NUDGE_MS) void pass();
  };
  const timer = setInterval(() => void pass(), config.BATCH_FEED_INTERVAL_MS);
  return () => {
    clearInterval(timer);
    parts.runEnds.listener = undefined;
  };
}
