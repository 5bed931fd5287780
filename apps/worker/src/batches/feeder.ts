// The batch feeder (issue #61): every BATCH_FEED_INTERVAL_MS one worker (a duty lock in Redis)
// makes a feed pass (use-cases feedBatches): items admitted into free places, batches expired and
// moved on. A pass that fails is logged and the next one tries again.
import { enqueueDeliveries } from "@svc/queue";
import { feedBatches } from "@svc/use-cases";
import type { WorkerDeps } from "../deps.js";
import type { AssembledWorker } from "../assembly.js";

/** The duty's name among the scheduler's duties (no model id has no slash: it is no pool's). */
const DUTY = "batch-feed";

export function startBatchFeeder({ config, db, logger }: WorkerDeps, parts: AssembledWorker) {
  const every = config.BATCH_FEED_INTERVAL_MS;
  const deps = {
    db,
    runs: parts.lifecycle,
    places: async (modelId: string) => {
      const stats = await parts.scheduler.stats(modelId);
      return { capacity: stats.capacity, leased: stats.leased, queued: stats.queued };
    },
    settings: { share: config.BATCH_MAX_SHARE_PERCENT / 100, unlimited: config.BATCH_UNPOOLED_IN_FLIGHT },
    logger,
    deliveries: (ids: readonly string[]) => enqueueDeliveries(parts.queues.deliveries, ids),
  };
  let running: Promise<void> | undefined;
  const pass = () =>
    (running ??= (async () => {
      try {
        if (await parts.scheduler.claimDuty(DUTY, every)) await feedBatches(deps);
      } catch (error) {
        logger.warn("batch feed pass failed", { error });
      } finally {
        running = undefined;
      }
    })());
  const timer = setInterval(() => void pass(), every);
  return () => clearInterval(timer);
}
