import { createHash } from "node:crypto";
import { Router, type RequestHandler, type Response } from "express";
import { z } from "zod";
import {
  ApiError,
  CANCEL_AFTER_MAX_MS,
  CANCEL_AFTER_MIN_MS,
  PER_RUN_EVENTS,
  RUN_STATUSES,
  WAIT_MAX_SECONDS,
  WEBHOOK_FILTER_VALUES,
  canonicalJson,
  parseCancelAfter,
  parsePreferWait,
  presentCanceledRun,
  presentCreatedRun,
  presentRun,
  presentWaitedRun,
  unitsRequested,
  webhookFilterEvents,
  type Pricing,
} from "@svc/core";
import { findRunForAccount, listRuns } from "@svc/db";
import { runView, streamRunEvents, waitForEnd } from "../runs/realtime.js";
import { authOf } from "../auth/authenticate.js";
import type { AppDeps } from "../deps.js";
import { cursorSchema, dateTimeQuery, paginate } from "../http/cursor.js";
import { pageLimit, validate } from "../http/validate.js";
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
  webhook_events_filter: z
    .array(z.enum(WEBHOOK_FILTER_VALUES), "expected an array of started, completed, failed, canceled")
    .min(1)
    .max(WEBHOOK_FILTER_VALUES.length)
    .optional(),
});

const preferHeader = z
  .string()
  .optional()
  .meta({
    description: "wait, or wait=N (1 to 60 s): answer once the run has ended or N seconds have passed",
  })
  .transform((value, ctx) => {
    const seconds = parsePreferWait(value);
    if (seconds !== "invalid") return seconds;
    ctx.addIssue({ code: "custom", message: `expected wait or wait=N with N from 1 to ${WAIT_MAX_SECONDS}` });
    return z.NEVER;
  });

export const runHeaders = z.object({
  "idempotency-key": z.string().min(1).max(255).optional(),
  prefer: preferHeader,
  "cancel-after": z
    .string()
    .optional()
    .meta({
      description: "Cancel (and refund) the run if it has not ended this long after creation: 30s, 5m, 1h30m",
    })
    .transform((value, ctx) => {
      if (value === undefined) return null;
      const ms = parseCancelAfter(value);
      if (ms !== null) return ms;
      ctx.addIssue({
        code: "custom",
        message: `expected a duration such as 30s, 5m or 1h30m, from ${CANCEL_AFTER_MIN_MS / 1_000}s to ${CANCEL_AFTER_MAX_MS / 3_600_000}h`,
      });
      return z.NEVER;
    }),
});

export const waitHeaders = z.object({ prefer: preferHeader });

export const listRunsQuery = z.object({
  limit: pageLimit,
  cursor: cursorSchema,
  model_id: z.string().min(1).optional(),
  status: z.enum(RUN_STATUSES).optional(),
  created_after: dateTimeQuery.optional(),
  created_before: dateTimeQuery.optional(),
});

/** Aborted when the client has gone: a waiting request stops waiting. */
function gone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  return controller.signal;
}

const runNotFound = (id: string) => new ApiError("RUN_NOT_FOUND", `No run with id ${JSON.stringify(id)}.`);

/** limitCreation: the run-creation budget, mounted on the route so that every path Express routes here counts. */
export function runRoutes(
  { db, runs, config, metrics, realtime }: AppDeps,
  limitCreation?: RequestHandler,
): Router {
  const router = Router();
  const cachedModel = modelCache(db, config.CATALOGUE_CACHE_TTL_MS);

  const creationLimit: RequestHandler[] = limitCreation ? [limitCreation] : [];
  router.post("/models/*modelId/run", ...creationLimit, async (req, res) => {
    const auth = authOf(res);
    const modelId = modelIdFrom(req.params.modelId);
    const headers = validate(
      runHeaders,
      {
        "idempotency-key": req.get("idempotency-key"),
        prefer: req.get("prefer"),
        "cancel-after": req.get("cancel-after"),
      },
      "header",
    );
    const key = headers["idempotency-key"];
    const model = await cachedModel(modelId);
    if (!model) throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(modelId)}.`);
    if (model.status !== "active")
      throw new ApiError("MODEL_NOT_ACTIVE", `Model ${modelId} is ${model.status} and cannot run.`);
    const body = validate(createRunBody, req.body ?? {}, "body");
    if (body.webhook_url)
      await checkWebhookUrl(body.webhook_url, "webhook_url", config.WEBHOOK_ALLOW_PRIVATE_URLS);
    else if (body.webhook_events_filter)
      throw new ApiError("VALIDATION_ERROR", "Invalid request body.", [
        { path: "webhook_events_filter", message: "applies to webhook_url, which is missing" },
      ]);
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
      webhookEvents: body.webhook_events_filter
        ? webhookFilterEvents(body.webhook_events_filter)
        : PER_RUN_EVENTS,
      cancelAfterMs: headers["cancel-after"],
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
    const created = presentCreatedRun(result.run, model.name);
    const wait = headers.prefer;
    if (wait === null) return void res.status(201).json({ data: created });
    const run = await waitForEnd(
      realtime,
      result.run.id,
      () => readRun(auth, result.run.id),
      wait,
      gone(res),
    );
    res.set("Preference-Applied", `wait=${wait}`);
    res.status(201).json({ data: await realtime.urls.resolve(presentWaitedRun(created, run)) });
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
    const views = await realtime.urls.resolve(page.map((run) => presentRun(run)));
    res.json({ data: { runs: views, next_cursor: nextCursor } });
  });

  const readRun = (auth: { accountId: string; mode: "live" | "test" }, runId: string) =>
    findRunForAccount(db, runId, auth.accountId, auth.mode);

  router.get("/runs/:runId", async (req, res) => {
    const auth = authOf(res);
    const { prefer: wait } = validate(waitHeaders, { prefer: req.get("prefer") }, "header");
    const runId = req.params.runId;
    const run =
      wait === null
        ? await readRun(auth, runId)
        : await waitForEnd(realtime, runId, () => readRun(auth, runId), wait, gone(res));
    if (!run) throw runNotFound(runId);
    if (wait !== null) res.set("Preference-Applied", `wait=${wait}`);
    res.json({ data: await runView(realtime, run) });
  });

  router.get("/runs/:runId/events", async (req, res) => {
    const auth = authOf(res);
    const runId = req.params.runId;
    const run = await readRun(auth, runId);
    if (!run) throw runNotFound(runId);
    streamRunEvents(realtime, req, res, run, () => readRun(auth, runId));
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
