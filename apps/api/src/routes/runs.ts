import { createHash } from "node:crypto";
import { Router } from "express";
import { z } from "zod";
import {
  ApiError,
  RUN_STATUSES,
  cancelDecision,
  canonicalJson,
  presentCanceledRun,
  presentCreatedRun,
  presentRun,
  settlementCharge,
  tokensFor,
  unitsRequested,
  type Pricing,
} from "@svc/core";
import { createRun, findModel, findRunForAccount, listRuns, settleRun } from "@svc/db";
import { publishCancel } from "@svc/queue";
import { authOf } from "../auth/authenticate.js";
import type { AppDeps } from "../deps.js";
import { cursorSchema, paginate } from "../http/cursor.js";
import { validate } from "../http/validate.js";
import { validateRunInput } from "../runs/inputValidator.js";
import { checkWebhookUrl } from "../webhooks/checkUrl.js";
import { modelCache } from "../catalogue/modelCache.js";
import { modelIdFrom } from "./models.js";

export const createRunBody = z.strictObject({
  input: z.record(z.string(), z.unknown(), "expected an object"),
  webhook_url: z
    .url({ protocol: /^https$/, error: "expected an https:// URL" })
    .max(2048)
    .optional(),
});

export const runHeaders = z.object({ "idempotency-key": z.string().min(1).max(255).optional() });

export const listRunsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: cursorSchema,
  model_id: z.string().min(1).optional(),
  status: z.enum(RUN_STATUSES).optional(),
  created_after: z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s))
    .optional(),
  created_before: z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s))
    .optional(),
});

const runNotFound = (id: string) => new ApiError("RUN_NOT_FOUND", `No run with id ${JSON.stringify(id)}.`);

export function runRoutes({ db, redis, queues, config, logger, metrics }: AppDeps): Router {
  const router = Router();
  const cachedModel = modelCache(db, config.CATALOGUE_CACHE_TTL_MS);

  router.post("/models/*modelId/run", async (req, res) => {
    const auth = authOf(res);
    const modelId = modelIdFrom(req.params.modelId);
    const key = validate(runHeaders, { "idempotency-key": req.get("idempotency-key") }, "header")[
      "idempotency-key"
    ];
    const model = await cachedModel(modelId);
    if (!model) throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(modelId)}.`);
    if (model.status !== "active")
      throw new ApiError("MODEL_NOT_ACTIVE", `Model ${modelId} is ${model.status} and cannot run.`);
    const body = validate(createRunBody, req.body ?? {}, "body");
    if (body.webhook_url)
      await checkWebhookUrl(body.webhook_url, "webhook_url", config.WEBHOOK_ALLOW_PRIVATE_URLS);
    const input = validateRunInput(model, body.input);
    const pricing = model.pricing as Pricing;
    const units = unitsRequested(pricing, input);
    const { run, replayed } = await createRun(db, {
      accountId: auth.accountId,
      apiKeyId: auth.keyId,
      mode: auth.mode,
      modelId,
      input,
      webhookUrl: body.webhook_url ?? null,
      unitsRequested: units,
      estimatedTokens: tokensFor(pricing, units),
      idempotencyKey: key ?? null,
      requestHash: key
        ? createHash("sha256")
            .update(canonicalJson({ modelId, body: req.body }))
            .digest("hex")
        : null,
    });
    if (!replayed) {
      metrics.runsCreated.inc({ model: modelId, mode: auth.mode });
      if (auth.mode === "live") metrics.tokensReserved.inc({ model: modelId }, run.estimatedTokens);
      // The run is committed; if Redis is down now the sweeper enqueues it later (same job id).
      await queues.enqueueRun(run.id).catch((error: unknown) =>
        logger.warn("enqueue failed; the sweeper will pick the run up", {
          request_id: res.locals.requestId,
          run_id: run.id,
          error: (error as Error).message,
        }),
      );
    }
    if (replayed) res.set("Idempotent-Replayed", "true");
    res.status(201).json({ data: presentCreatedRun(run, model.name) });
  });

  router.get("/runs", async (req, res) => {
    const auth = authOf(res);
    const query = validate(listRunsQuery, req.query, "query");
    const runs = await listRuns(db, {
      accountId: auth.accountId,
      mode: auth.mode,
      modelId: query.model_id,
      status: query.status,
      createdAfter: query.created_after,
      createdBefore: query.created_before,
      after: query.cursor,
      limit: query.limit + 1,
    });
    const { page, nextCursor } = paginate(runs, query.limit);
    res.json({ data: { runs: page.map(presentRun), next_cursor: nextCursor } });
  });

  router.get("/runs/:runId", async (req, res) => {
    const auth = authOf(res);
    const run = await findRunForAccount(db, req.params.runId, auth.accountId, auth.mode);
    if (!run) throw runNotFound(req.params.runId);
    res.json({ data: presentRun(run) });
  });

  router.post("/runs/:runId/cancel", async (req, res) => {
    const auth = authOf(res);
    const runId = req.params.runId;
    const run = await findRunForAccount(db, runId, auth.accountId, auth.mode);
    if (!run) throw runNotFound(runId);
    const notCancelable = (status: string) =>
      new ApiError(
        "RUN_NOT_CANCELABLE",
        `Run ${runId} is ${status.toLowerCase()} and can no longer be canceled.`,
      );
    switch (cancelDecision(run.status)) {
      case "already_canceled":
        res.json({ data: presentCanceledRun(run) });
        return;
      case "not_cancelable":
        throw notCancelable(run.status);
      case "cancel":
        break;
    }
    const model = await findModel(db, run.modelId);
    const pricing = model!.pricing as Pricing;
    const canceled = await settleRun(db, runId, ["QUEUED", "EXECUTING"], {
      to: "CANCELED",
      charge: (reserved) => settlementCharge(pricing, run.unitsCompleted, reserved),
    });
    // Lost a race: the run finished (409) or another cancel won (same answer as that cancel).
    const final = canceled?.run ?? (await findRunForAccount(db, runId, auth.accountId, auth.mode))!;
    if (final.status !== "CANCELED") throw notCancelable(final.status);
    if (canceled) {
      // Best effort: drop the waiting job, tell an executing worker to abort, send run.canceled
      // to subscribed endpoints (a delivery left pending here is sent by the sweeper).
      await Promise.allSettled([
        queues.removeRun(runId),
        publishCancel(redis, config.QUEUE_PREFIX, runId),
        queues.enqueueDeliveries(canceled.deliveryIds),
      ]);
    }
    res.json({ data: presentCanceledRun(final) });
  });

  return router;
}
