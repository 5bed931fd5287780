import type { Job } from "bullmq";
import { generateSigningSecret, openSecret, presentPrediction, sealSecret, signDelivery } from "@svc/core";
import {
  defaultSecretEnc,
  dropDelivery,
  findDeliveryToSend,
  recordAttempt,
  type AttemptOutcome,
  type Db,
} from "@svc/db";
import type { Logger } from "@svc/logger";
import { inSpan, SpanStatusCode, type Tracing } from "@svc/telemetry";
import type { DeliveryJob } from "@svc/queue";
import type { OutputUrls } from "@svc/storage";
import type { WorkerMetrics } from "../metrics.js";
import type { WebhookSender } from "./sendWebhook.js";

export interface DeliverDeps {
  db: Db;
  logger: Logger;
  /** A span per attempt, in its run's trace; its traceparent goes to the receiver too. */
  tracing: Tracing;
  secretsKey: Buffer;
  send: WebhookSender;
  /** Signed output URLs are signed afresh for each attempt, so that a late retry still works. */
  urls: OutputUrls;
  /** The Replicate adapter's URL (PUBLIC_BASE_URL + /replicate/v1), for predictions' urls. */
  replicateBase: string;
  metrics?: Pick<WorkerMetrics, "deliveryAttempts" | "deliveryLatency">;
}

export class RetryDelivery extends Error {}

/**
 * One delivery attempt. The attempt number comes from the database, so a retried or repeated job
 * continues the count; recordAttempt decides what the attempt means (success, retry, failed).
 * Throws RetryDelivery to have BullMQ schedule the next attempt with the configured backoff.
 */
export async function deliverWebhook(
  deps: DeliverDeps,
  job: Job<DeliveryJob>,
): Promise<AttemptOutcome | "skipped" | "dropped"> {
  const { db } = deps;
  const delivery = await findDeliveryToSend(db, job.data.deliveryId);
  if (!delivery || delivery.status !== "pending") return "skipped";
  const log = deps.logger.child({
    delivery_id: delivery.id,
    job_id: job.id,
    run_id: delivery.runId,
    endpoint_id: delivery.endpointId,
  });
  if (delivery.endpoint && delivery.endpoint.status !== "active") {
    await dropDelivery(db, delivery.id);
    log.info("endpoint disabled; delivery dropped");
    return "dropped";
  }

  const secrets: string[] = [];
  if (delivery.endpoint) {
    secrets.push(openSecret(deps.secretsKey, delivery.endpoint.secretEnc));
    const { previousSecretEnc, previousSecretUntil } = delivery.endpoint;
    if (previousSecretEnc && previousSecretUntil && previousSecretUntil > new Date())
      secrets.push(openSecret(deps.secretsKey, previousSecretEnc));
  } else {
    const owner = { accountId: delivery.accountId, mode: delivery.mode };
    const sealed =
      delivery.defaultSecretEnc ??
      (await defaultSecretEnc(db, owner, () => sealSecret(deps.secretsKey, generateSigningSecret())));
    secrets.push(openSecret(deps.secretsKey, sealed));
  }

  const number = delivery.attemptCount + 1;
  // A run made through Replicate's API gets Replicate's webhook body: the prediction as it is now.
  const payload = delivery.replicateRun ? presentPrediction(delivery.replicateRun, deps.replicateBase) : null;
  const body = payload
    ? JSON.stringify(await deps.urls.resolve(payload))
    : deps.urls.signed
      ? JSON.stringify(await deps.urls.resolve(JSON.parse(delivery.body)))
      : delivery.body;
  const startedAt = new Date();
  const headers = signDelivery({
    secrets,
    deliveryId: delivery.id,
    event: delivery.event,
    body,
    at: startedAt,
  });
  const result = await inSpan(
    deps.tracing,
    "webhook.attempt",
    deps.tracing.contextOf(delivery.traceParent),
    { "svc.delivery_id": delivery.id, "svc.event": delivery.event, "svc.attempt": number },
    async (span) => {
      const traceparent = span && deps.tracing.traceparentOf(span);
      const sent = await deps.send(delivery.url, body, { ...headers, ...(traceparent && { traceparent }) });
      span?.setAttributes({
        ...(sent.statusCode && { "http.response.status_code": sent.statusCode }),
        ...(sent.errorClass && { "error.type": sent.errorClass }),
      });
      if (sent.errorClass) span?.setStatus({ code: SpanStatusCode.ERROR });
      return sent;
    },
  );
  const durationMs = Date.now() - startedAt.getTime();
  const outcome = await recordAttempt(db, {
    deliveryId: delivery.id,
    number,
    startedAt,
    durationMs,
    ...result,
  });
  deps.metrics?.deliveryAttempts.inc({ outcome });
  deps.metrics?.deliveryLatency.observe(durationMs / 1000);
  log.info("webhook attempt", {
    attempt: number,
    status_code: result.statusCode,
    error_class: result.errorClass,
    duration_ms: durationMs,
    outcome,
  });
  if (outcome === "retry")
    throw new RetryDelivery(
      `attempt ${number} failed (${result.errorClass}${result.statusCode ? ` ${result.statusCode}` : ""})`,
    );
  return outcome;
}
