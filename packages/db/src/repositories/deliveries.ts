import {
  DELIVERY_ATTEMPTS,
  DISABLE_AFTER_FAILED_DELIVERIES,
  newId,
  testPayload,
  type AttemptErrorClass,
  type RunRecord,
} from "@svc/core";
import { NEWEST_FIRST, pastPosition, type Position } from "./keyset.js";
import { findMany, sqlPool, type Db } from "../client.js";
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

export interface DeliveryToSend {
  id: string;
  accountId: string;
  mode: "live" | "test";
  runId: string | null;
  endpointId: string | null;
  url: string;
  event: string;
  body: string;
  status: "pending" | "succeeded" | "failed";
  attemptCount: number;
  endpoint: {
    status: "active" | "disabled";
    secretEnc: string;
    previousSecretEnc: string | null;
    previousSecretUntil: Date | null;
  } | null;
  /** The account's sealed secret for per-run webhook_url deliveries of this mode, if made yet. */
  defaultSecretEnc: string | null;
  /** Its run's trace (tracing on), which its attempts join. */
  traceParent: string | null;
  /**
   * A run made through Replicate's API, for a delivery to its own webhook: the run as it is now,
   * sent as a Replicate prediction instead of the stored body (Replicate's webhooks carry the
   * prediction, whatever the event).
   */
  replicateRun: (RunRecord & { input: unknown }) | null;
}

const FIND_DELIVERY = `
SELECT d.id, d.account_id, d.mode, d.run_id, d.endpoint_id, d.url, d.event, d.body, d.status, d.attempt_count,
       e.status AS endpoint_status, e.secret_enc, e.previous_secret_enc, e.previous_secret_until,
       CASE WHEN d.endpoint_id IS NOT NULL THEN NULL
            WHEN d.mode = 'live' THEN a.webhook_secret_live_enc ELSE a.webhook_secret_test_enc END AS default_secret_enc,
       r.trace_parent,
       CASE WHEN d.endpoint_id IS NULL AND r.api = 'replicate' THEN jsonb_build_object(
         'id', r.id, 'status', r.status, 'model_id', r.model_id, 'mode', r.mode, 'input', r.input,
         'estimated_tokens', r.estimated_tokens, 'tokens_charged', r.tokens_charged, 'output', r.output,
         'error_code', r.error_code, 'error_message', r.error_message, 'created_at', r.created_at,
         'started_at', r.started_at, 'completed_at', r.completed_at, 'canceled_at', r.canceled_at) END AS replicate_run
FROM deliveries d
LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
LEFT JOIN runs r ON r.id = d.run_id
JOIN accounts a ON a.id = d.account_id
WHERE d.id = $1`;

/** A delivery with what sending it needs (its endpoint's secrets, or the account's default), in one query. */
export async function findDeliveryToSend(db: Db, id: string): Promise<DeliveryToSend | null> {
  const { rows } = await sqlPool(db).query({
    name: "deliveries_find_to_send",
    text: FIND_DELIVERY,
    values: [id],
  });
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    accountId: r.account_id,
    mode: r.mode,
    runId: r.run_id,
    endpointId: r.endpoint_id,
    url: r.url,
    event: r.event,
    body: r.body,
    status: r.status,
    attemptCount: r.attempt_count,
    endpoint: r.endpoint_id
      ? {
          status: r.endpoint_status,
          secretEnc: r.secret_enc,
          previousSecretEnc: r.previous_secret_enc,
          previousSecretUntil: r.previous_secret_until,
        }
      : null,
    defaultSecretEnc: r.default_secret_enc,
    traceParent: r.trace_parent,
    replicateRun: r.replicate_run && runOfJson(r.replicate_run),
  };
}

const dateOrNull = (v: string | null) => (v === null ? null : new Date(v));

/** A run as jsonb_build_object gives it (snake case, timestamps as text). */
interface RunJson {
  id: string;
  status: RunRecord["status"];
  model_id: string;
  mode: RunRecord["mode"];
  input: unknown;
  estimated_tokens: number;
  tokens_charged: number | null;
  output: unknown;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  canceled_at: string | null;
}

function runOfJson(j: RunJson): RunRecord & { input: unknown } {
  return {
    id: j.id,
    status: j.status,
    modelId: j.model_id,
    mode: j.mode,
    input: j.input,
    estimatedTokens: j.estimated_tokens,
    tokensCharged: j.tokens_charged,
    output: j.output,
    errorCode: j.error_code,
    errorMessage: j.error_message,
    createdAt: new Date(j.created_at),
    startedAt: dateOrNull(j.started_at),
    completedAt: dateOrNull(j.completed_at),
    canceledAt: dateOrNull(j.canceled_at),
  };
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

const RECORD_ATTEMPT = `
WITH attempt AS (
  INSERT INTO delivery_attempts (id, delivery_id, number, started_at, duration_ms, status_code, error_class, success)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (delivery_id, number) DO NOTHING RETURNING delivery_id
), moved AS (
  UPDATE deliveries d SET status = $9::"DeliveryStatus", attempt_count = $3,
    completed_at = CASE WHEN $10::boolean THEN now() ELSE d.completed_at END
  WHERE d.id = $2 AND d.status = 'pending' AND EXISTS (SELECT 1 FROM attempt)
  RETURNING d.endpoint_id
), endpoint AS (
  UPDATE webhook_endpoints e SET
    consecutive_failures = CASE WHEN $8 THEN 0 ELSE e.consecutive_failures + 1 END,
    status = CASE WHEN NOT $8 AND e.consecutive_failures + 1 >= $11 THEN 'disabled'::"EndpointStatus" ELSE e.status END,
    disabled_at = CASE WHEN NOT $8 AND e.consecutive_failures + 1 >= $11 AND e.disabled_at IS NULL THEN now()
                       ELSE e.disabled_at END
  FROM moved WHERE e.id = moved.endpoint_id AND $10::boolean AND (NOT $8 OR e.consecutive_failures <> 0)
)
SELECT count(*)::int AS moved FROM moved`;

/**
 * Records one attempt and what follows from it, in one statement. A success resets the
 * endpoint's consecutive failures (written only when there are any, so that a busy endpoint's row
 * is not locked by every delivery); the last failed attempt fails the delivery and counts one
 * failure against the endpoint, which is disabled at the tenth in a row. A repeated attempt number
 * (a job run twice) or a delivery already final changes nothing.
 */
export async function recordAttempt(db: Db, attempt: AttemptRecord): Promise<AttemptOutcome> {
  const final = attempt.success || attempt.number >= DELIVERY_ATTEMPTS;
  const status = attempt.success ? "succeeded" : final ? "failed" : "pending";
  const result = await sqlPool(db).query<{ moved: number }>({
    name: "deliveries_record_attempt",
    text: RECORD_ATTEMPT,
    values: [
      newId("wha"),
      attempt.deliveryId,
      attempt.number,
      attempt.startedAt,
      attempt.durationMs,
      attempt.statusCode,
      attempt.errorClass,
      attempt.success,
      status,
      final,
      DISABLE_AFTER_FAILED_DELIVERIES,
    ],
  });
  if (result.rows[0]!.moved === 0) return "already_final";
  return attempt.success ? "succeeded" : final ? "failed" : "retry";
}

/** A delivery that will not be attempted (its endpoint is disabled): failed, not counted. */
export async function dropDelivery(db: Db, id: string): Promise<void> {
  await sqlPool(db).query({
    name: "deliveries_drop",
    text: "UPDATE deliveries SET status = 'failed', completed_at = now() WHERE id = $1 AND status = 'pending'",
    values: [id],
  });
}

export function listDeliveries(db: Db, owner: Owner, endpointId: string, limit: number, before?: Position) {
  return db.delivery.findMany({
    where: { endpointId, ...owner, ...pastPosition(before) },
    orderBy: NEWEST_FIRST,
    take: limit,
    include: { attempts: { orderBy: { number: "asc" } } },
  });
}

/** Pending deliveries created before `olderThan`: candidates for re-enqueueing by the sweeper. */
export function pendingDeliveriesBefore(db: Db, olderThan: Date, limit = 500) {
  return findMany<{ id: string }>(
    db,
    "deliveries_pending_before",
    "SELECT id FROM deliveries WHERE status = 'pending' AND created_at < $1 ORDER BY created_at LIMIT $2",
    [olderThan, limit],
  );
}
