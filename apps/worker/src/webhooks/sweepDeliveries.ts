import { pendingDeliveriesBefore, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import { enqueueDeliveries, reviveJobs, type DeliveriesQueue } from "@svc/queue";

/**
 * Pending deliveries whose job is missing (Redis was down when they were recorded) are enqueued
 * again, and a pending delivery whose job failed for good is retried: no delivery is lost. One
 * that cannot be checked now is logged and met again by the next sweep.
 */
export async function sweepDeliveries(
  db: Db,
  queue: DeliveriesQueue,
  logger: Logger,
  olderThanMs: number,
): Promise<number> {
  const pending = await pendingDeliveriesBefore(db, new Date(Date.now() - olderThanMs));
  const revived = await reviveJobs(
    queue,
    pending.map(({ id }) => id),
    (ids) => enqueueDeliveries(queue, ids),
  );
  for (const { id, error } of revived.failed)
    logger.warn("sweep could not re-enqueue a delivery", { delivery_id: id, error });
  const resent = revived.enqueued.length + revived.retried.length;
  if (resent) logger.info("sweep", { deliveries_enqueued: resent });
  return resent;
}
