import { inputFileKey } from "@svc/core";
import { expireFiles } from "@svc/db";
import type { WorkerDeps } from "./deps.js";
import type { AssembledWorker } from "./assembly.js";
import { startBatchFeeder } from "./batches/feeder.js";
import { sweepRuns } from "./runs/sweeper.js";
import { startPoolMonitor } from "./scheduling/poolMonitor.js";
import { sweepDeliveries } from "./webhooks/sweepDeliveries.js";

/**
 * Housekeeping on timers: the sweepers (lost jobs, overdue runs, lost deadlines), the pool monitor
 * (capacity and health), output expiry, input file expiry (with the sweep). A failed pass is logged
 * and the next one tries again. Returns the function that stops them.
 */
export function startHousekeeping({ config, db, redis, logger }: WorkerDeps, parts: AssembledWorker) {
  const periodic = (what: string, task: () => Promise<unknown>) => async () => {
    try {
      await task();
    } catch (error) {
      logger.warn(`${what} failed`, { error });
    }
  };
  const sweepOnce = async () => {
    await periodic("run sweep", () =>
      sweepRuns({
        db,
        runs: parts.lifecycle,
        queue: parts.lanes.runs,
        leased: parts.lanes.leased,
        scheduler: parts.scheduler,
        redis,
        prefix: config.QUEUE_PREFIX,
        logger,
        queuedAfterMs: config.SWEEP_QUEUED_AFTER_MS,
      }),
    )();
    await periodic("delivery sweep", () =>
      sweepDeliveries(db, parts.queues.deliveries, logger, config.SWEEP_QUEUED_AFTER_MS),
    )();
    await periodic("input file expiry", async () => {
      const expired = await expireFiles(db, new Date(), 500);
      if (!expired.length) return;
      await parts.store.remove(expired.map((f) => inputFileKey(f.id, f.contentType)));
      logger.info("input files expired", { files: expired.length });
    })();
  };
  // One pass at a time: while Redis or Postgres is away a pass waits, and the next tick must not
  // start another behind it.
  let sweeping: Promise<void> | undefined;
  const sweep = () =>
    (sweeping ??= sweepOnce().finally(() => {
      sweeping = undefined;
    }));
  const sweeper = setInterval(sweep, config.SWEEP_INTERVAL_MS);
  void sweep();

  const monitor = startPoolMonitor({
    db,
    redis,
    prefix: config.QUEUE_PREFIX,
    scheduler: parts.scheduler,
    dispatcher: parts.dispatcher,
    logger,
    everyMs: config.POOL_MONITOR_INTERVAL_MS,
    catalogueTtlMs: config.CATALOGUE_CACHE_TTL_MS,
    secretsKey: parts.secretsKey,
    nextRunMaxHoldMs: config.SCHEDULER_NEXT_RUN_MAX_HOLD_MS,
  });

  const expireOutputs = periodic("output expiry", async () => {
    const before = new Date(Date.now() - config.OUTPUT_RETENTION_DAYS * 86_400_000);
    const expired = await parts.store.expire(before);
    if (expired)
      logger.info("outputs expired", { outputs: expired, retention_days: config.OUTPUT_RETENTION_DAYS });
  });
  const expiry =
    config.OUTPUT_RETENTION_DAYS > 0
      ? setInterval(expireOutputs, config.OUTPUT_EXPIRY_INTERVAL_MS)
      : undefined;

  // Only a worker that executes batch items admits them (the runs it leases at once start here).
  const stopFeeder = parts.executes.batch ? startBatchFeeder({ config, db, redis, logger }, parts) : () => {};

  return () => {
    clearInterval(sweeper);
    clearInterval(expiry);
    monitor.stop();
    stopFeeder();
  };
}
