import {
  DELIVERY_ATTEMPTS,
  DISABLE_AFTER_FAILED_DELIVERIES,
  newId,
  testPayload,
  type AttemptErrorClass,
} from "@svc/core";
import type { Db } from "../client.js";
import type { Prisma } from "../generated/prisma/client.js";
import type { Owner } from "./webhooks.js";

/** Records one pending delivery to an endpoint and returns its id (the caller enqueues it). */
async function insertDelivery(
  db: Db,
  data: Omit<Prisma.DeliveryUncheckedCreateInput, "id">,
): Promise<string> {
  const id = newId("whd");
  await db.delivery.create({ data: { id, ...data } });
  return id;
}

export function createTestDelivery(
  db: Db,
  endpoint: { id: string; accountId: string; mode: Owner["mode"]; url: string },
) {
  const now = new Date();
  return insertDelivery(db, {
    accountId: endpoint.accountId,
    mode: endpoint.mode,
    endpointId: endpoint.id,
    url: endpoint.url,
    event: "webhook.test",
    body: JSON.stringify(testPayload(endpoint.id, now)),
    createdAt: now,
  });
}

/** A new delivery of the same event and body (new id: receivers see a fresh delivery). */
export async function redeliver(
  db: Db,
  owner: Owner,
  endpointId: string,
  deliveryId: string,
): Promise<string | null> {
  const original = await db.delivery.findFirst({ where: { id: deliveryId, endpointId, ...owner } });
  if (!original) return null;
  const { accountId, mode, runId, url, event, body } = original;
  return insertDelivery(db, { accountId, mode, runId, endpointId, url, event, body });
}

export function findDeliveryToSend(db: Db, id: string) {
  return db.delivery.findUnique({
    where: { id },
    include: {
      endpoint: {
        select: {
          status: true,
          url: true,
          secretEnc: true,
          previousSecretEnc: true,
          previousSecretUntil: true,
        },
      },
    },
  });
}

export interface AttemptRecord {
  deliveryId: string;
  number: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  errorClass: AttemptErrorClass | null;
  success: boolean;
}

export type AttemptOutcome = "succeeded" | "retry" | "failed" | "already_final";

/**
 * Records one attempt and what follows from it, in one transaction. A success resets the
 * endpoint's consecutive failures; the last failed attempt fails the delivery and counts one
 * failure against the endpoint, which is disabled at the tenth in a row. A repeated attempt
 * number (a job run twice) or a delivery already final changes nothing.
 */
export async function recordAttempt(db: Db, attempt: AttemptRecord): Promise<AttemptOutcome> {
  return db.$transaction(async (tx) => {
    const inserted = await tx.deliveryAttempt.createMany({
      data: [{ id: newId("wha"), ...attempt }],
      skipDuplicates: true,
    });
    if (inserted.count === 0) return "already_final";
    const final = attempt.success || attempt.number >= DELIVERY_ATTEMPTS;
    const status = attempt.success ? "succeeded" : final ? "failed" : "pending";
    const moved = await tx.delivery.updateMany({
      where: { id: attempt.deliveryId, status: "pending" },
      data: { status, attemptCount: attempt.number, ...(final && { completedAt: new Date() }) },
    });
    if (moved.count === 0) return "already_final";
    const delivery = await tx.delivery.findUniqueOrThrow({
      where: { id: attempt.deliveryId },
      select: { endpointId: true },
    });
    if (delivery.endpointId && final) {
      if (attempt.success) {
        await tx.webhookEndpoint.updateMany({
          where: { id: delivery.endpointId },
          data: { consecutiveFailures: 0 },
        });
      } else {
        await tx.$executeRaw`
          UPDATE webhook_endpoints SET
            consecutive_failures = consecutive_failures + 1,
            status = CASE WHEN consecutive_failures + 1 >= ${DISABLE_AFTER_FAILED_DELIVERIES} THEN 'disabled'::"EndpointStatus" ELSE status END,
            disabled_at = CASE WHEN consecutive_failures + 1 >= ${DISABLE_AFTER_FAILED_DELIVERIES} AND disabled_at IS NULL THEN now() ELSE disabled_at END
          WHERE id = ${delivery.endpointId}`;
      }
    }
    return attempt.success ? "succeeded" : final ? "failed" : "retry";
  });
}

/** A delivery that will not be attempted (its endpoint is disabled): failed, not counted. */
export function dropDelivery(db: Db, id: string) {
  return db.delivery.updateMany({
    where: { id, status: "pending" },
    data: { status: "failed", completedAt: new Date() },
  });
}

export function listDeliveries(
  db: Db,
  owner: Owner,
  endpointId: string,
  limit: number,
  before?: { createdAt: Date; id: string },
) {
  return db.delivery.findMany({
    where: {
      endpointId,
      ...owner,
      ...(before && {
        OR: [{ createdAt: { lt: before.createdAt } }, { createdAt: before.createdAt, id: { lt: before.id } }],
      }),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    include: { attempts: { orderBy: { number: "asc" } } },
  });
}

/** Pending deliveries created before `olderThan`: candidates for re-enqueueing by the sweeper. */
export function pendingDeliveriesBefore(db: Db, olderThan: Date, limit = 500) {
  return db.delivery.findMany({
    where: { status: "pending", createdAt: { lt: olderThan } },
    orderBy: { createdAt: "asc" },
    select: { id: true },
    take: limit,
  });
}
