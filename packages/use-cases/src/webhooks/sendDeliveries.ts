// Deliveries recorded with a change (an alert, a redelivery) go to the workers' queue now; those
// a Redis outage keeps out of it are pending in the database, and the worker's sweeper sends them.
import type { Logger } from "@svc/logger";
import type { Producer } from "@svc/queue";

export async function sendDeliveries(
  deps: { queues: Pick<Producer, "enqueueDeliveries">; logger: Logger },
  deliveryIds: readonly string[],
  context: Record<string, string> = {},
): Promise<void> {
  if (!deliveryIds.length) return;
  await deps.queues.enqueueDeliveries(deliveryIds).catch((error: unknown) =>
    deps.logger.warn("enqueue of deliveries failed; the sweeper will send them", {
      ...context,
      delivery_ids: deliveryIds,
      error: (error as Error).message,
    }),
  );
}
