import { pendingDeliveriesBefore, type Db } from "@svc/db";
import { enqueueDeliveries, type DeliveriesQueue } from "@svc/queue";

/**
 * Pending deliveries whose job is missing (Redis was down when they were recorded) are enqueued
 * again, and a pending delivery whose job failed for good is retried: no delivery is lost.
 */
export async function sweepDeliveries(db: Db, queue: DeliveriesQueue, olderThanMs: number): Promise<number> {
  let enqueued = 0;
  for (const { id } of await pendingDeliveriesBefore(db, new Date(Date.now() - olderThanMs))) {
    const job = await queue.getJob(id);
    if (!job) {
      await enqueueDeliveries(queue, [id]);
      enqueued++;
    } else if (await job.isFailed()) {
      await job.retry();
      enqueued++;
    }
  }
  return enqueued;
}
