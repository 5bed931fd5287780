import { createHash } from "node:crypto";
import { Router, type RequestHandler } from "express";
import { z } from "zod";
import {
  ApiError,
  RUN_STATUSES,
  canonicalJson,
  presentCanceledRun,
  presentCreatedRun,
  presentRun,
  unitsRequested,
  type Pricing,
} from "@svc/core";
import { findRunForAccount, listRuns } from "@svc/db";
import { authOf } from "../auth/authenticate.js";
import type { AppDeps } from "../deps.js";
import { cursorSchema, dateTimeQuery, paginate } from "../http/cursor.js";
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
  created_after: dateTimeQuery.optional(),
  created_before: dateTimeQuery.optional(),
});

const runNotFound = (id: string) => new ApiError("RUN_NOT_FOUND", `No run with id ${JSON.stringify(id)}.`);

/** limitCreation: the run-creation budget, mounted on the route so that every path Express routes here counts. */
export function runRoutes({ db, runs, config, metrics }: AppDeps, limitCreation?: RequestHandler): Router {
  const router = Router();
  const cachedModel = modelCache(db, config.CATALOGUE_CACHE_TTL_MS);

  const creationLimit: RequestHandler[] = limitCreation ? [limitCreation] : [];
  router.post("/models/*modelId/run", ...creationLimit, async (req, res) => {
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
    if (!auth.keyId)
      throw new ApiError("VALIDATION_ERROR", "A run is attributed to one of the account's API keys.", [
        { path: "X-Api-Key-Id", message: "expected the id of an active API key of this mode" },
      ]);
    const pricing = model.pricing as Pricing;
    const result = await runs.create({
      accountId: auth.accountId,
      apiKeyId: auth.keyId,
      mode: auth.mode,
      model: { id: modelId, pricing },
      input,
      unitsRequested: unitsRequested(pricing, input),
      webhookUrl: body.webhook_url ?? null,
      idempotencyKey: key ?? null,
      requestHash: key
        ? createHash("sha256")
            .update(canonicalJson({ modelId, body: req.body }))
            .digest("hex")
        : null,
    });
    switch (result.kind) {
      case "insufficient":
        throw new ApiError(
          "INSUFFICIENT_TOKENS",
          `This run needs ${result.needed} tokens, more than the account has available.`,
        );
      case "key_reused":
        throw new ApiError(
          "IDEMPOTENCY_KEY_REUSED",
          "This Idempotency-Key was used with a different request in the last 24 hours.",
        );
      case "replayed":
        res.set("Idempotent-Replayed", "true");
        break;
      case "created":
        metrics.runsCreated.inc({ model: modelId, mode: auth.mode });
        if (auth.mode === "live") metrics.tokensReserved.inc({ model: modelId }, result.run.estimatedTokens);
        break;
    }
    res.status(201).json({ data: presentCreatedRun(result.run, model.name) });
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
    const result = await runs.cancel(auth, runId);
    switch (result.kind) {
      case "not_found":
        throw runNotFound(runId);
      case "not_cancelable":
        throw new ApiError(
          "RUN_NOT_CANCELABLE",
          `Run ${runId} is ${result.status.toLowerCase()} and can no longer be canceled.`,
        );
      case "canceled":
      case "already_canceled":
        res.json({ data: presentCanceledRun(result.run) });
    }
  });

  return router;
}
