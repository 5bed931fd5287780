import { pendingDeliveriesBefore, type Db } from "@svc/db";
import { enqueueDeliveries, reviveJobs, type DeliveriesQueue, type Revived } from "@svc/queue";

/**
 * Pending deliveries whose job is missing (Redis was down when they were recorded) are enqueued
 * again, and a pending delivery whose job failed for good is retried: no delivery is lost.
 */
export async function sweepDeliveries(db: Db, queue: DeliveriesQueue, olderThanMs: number): Promise<Revived> {
  const pending = await pendingDeliveriesBefore(db, new Date(Date.now() - olderThanMs));
  return reviveJobs(
    queue,
    pending.map(({ id }) => id),
    (ids) => enqueueDeliveries(queue, ids),
  );
}
