import { newId, type EventType, type Mode } from "@svc/core";
import { findOne, type Db } from "../client.js";

export interface Owner {
  accountId: string;
  mode: Mode;
}

/**
 * A new endpoint, unless the owner already has `max` (then null). Creations for one owner take
 * turns on a transaction-scoped advisory lock (not the account row, which run creation needs), so
 * concurrent requests cannot both see room for one more.
 */
export async function createEndpoint(
  db: Db,
  owner: Owner,
  data: { url: string; events: readonly EventType[]; secretEnc: string },
  max: number,
) {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`webhooks:${owner.accountId}:${owner.mode}`}, 0))`;
    if ((await tx.webhookEndpoint.count({ where: owner })) >= max) return null;
    return tx.webhookEndpoint.create({
      data: {
        id: newId("wh"),
        accountId: owner.accountId,
        mode: owner.mode,
        url: data.url,
        events: [...data.events],
        secretEnc: data.secretEnc,
      },
    });
  });
}

export function listEndpoints(db: Db, owner: Owner) {
  return db.webhookEndpoint.findMany({ where: owner, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

export function findEndpoint(db: Db, owner: Owner, id: string) {
  return db.webhookEndpoint.findFirst({ where: { id, ...owner } });
}

/** Deleting removes the endpoint and its delivery log; its pending deliveries are dropped with it. */
export async function deleteEndpoint(db: Db, owner: Owner, id: string): Promise<boolean> {
  return (await db.webhookEndpoint.deleteMany({ where: { id, ...owner } })).count > 0;
}

export async function enableEndpoint(db: Db, owner: Owner, id: string) {
  await db.webhookEndpoint.updateMany({
    where: { id, ...owner },
    data: { status: "active", consecutiveFailures: 0, disabledAt: null },
  });
  return findEndpoint(db, owner, id);
}

/** Replaces the events an endpoint subscribes to; null when it is not the owner's. */
export async function setEndpointEvents(db: Db, owner: Owner, id: string, events: string[]) {
  await db.webhookEndpoint.updateMany({ where: { id, ...owner }, data: { events } });
  return findEndpoint(db, owner, id);
}

/** The current secret becomes the previous one (signing alongside until `previousUntil`). */
export async function rotateEndpointSecret(
  db: Db,
  owner: Owner,
  id: string,
  secretEnc: string,
  previousUntil: Date,
) {
  const updated = await db.$executeRaw`
    UPDATE webhook_endpoints SET previous_secret_enc = secret_enc, previous_secret_until = ${previousUntil}, secret_enc = ${secretEnc}
    WHERE id = ${id} AND account_id = ${owner.accountId} AND mode = ${owner.mode}::"Mode"`;
  return updated > 0;
}

/** The account's signing secret for per-run webhook_url deliveries, made on first use. */
export async function defaultSecretEnc(db: Db, owner: Owner, sealNew: () => string): Promise<string> {
  const column = owner.mode === "live" ? "webhook_secret_live_enc" : "webhook_secret_test_enc";
  const row = await findOne<{ s: string }>(
    db,
    `accounts_default_secret_${owner.mode}`,
    `UPDATE accounts SET ${column} = COALESCE(${column}, $1) WHERE id = $2 RETURNING ${column} AS s`,
    [sealNew(), owner.accountId],
  );
  return row!.s;
}
