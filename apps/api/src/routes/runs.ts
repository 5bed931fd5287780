import type { Response } from "express";
import { z } from "zod";
import {
  ApiError,
  CANCEL_AFTER_MAX_MS,
  CANCEL_AFTER_MIN_MS,
  RUN_PRIORITIES,
  RUN_STATUSES,
  WAIT_MAX_SECONDS,
  WEBHOOK_FILTER_VALUES,
  parseCancelAfter,
  parsePreferWait,
  presentCanceledRun,
  presentCreatedRun,
  presentRun,
  presentWaitedRun,
  runIdView,
  budgetRefusal,
  type RunRecord,
} from "@svc/core";
import { findRunForAccount, listRuns, type Db } from "@svc/db";
import { admitRun, keyRefusal, resolveFileInputs } from "@svc/use-cases";
import { runView, streamRunEvents, waitForEnd } from "../runs/realtime.js";
import { authOf } from "../auth/authenticate.js";
import { cursorSchema, dateTimeQuery, paginate } from "../http/cursor.js";
import { pageLimit } from "../http/validate.js";
import { perApp, rawRoute, route, type Route } from "../http/route.js";
import * as R from "../openapi/responses.js";
import { header } from "../openapi/register.js";
import { fileFieldsFor, validateRunInput } from "../runs/inputValidator.js";
import { checkWebhookUrl } from "../webhooks/checkUrl.js";
import type { AppDeps } from "../deps.js";
import type { HeldConnections, HeldPlace } from "../runs/heldConnections.js";
import { clientGone, whenClientGone } from "../http/clientGone.js";
import { testRunQuota } from "../runs/testRunQuota.js";
import { modelId } from "./models.js";

const createRunBody = z
  .strictObject({
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
    priority: z.enum(RUN_PRIORITIES, "expected normal or low").default("normal").meta({
      description:
        "Lane among the account's own runs waiting for a busy model: low runs start only when the account has no normal run waiting",
    }),
  })
  .refine((b) => !b.webhook_events_filter || b.webhook_url, {
    path: ["webhook_events_filter"],
    message: "applies to webhook_url, which is missing",
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

const runHeaders = z.object({
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

const waitHeaders = z.object({ prefer: preferHeader });

const listRunsQuery = z.object({
  limit: pageLimit,
  cursor: cursorSchema,
  model_id: z.string().min(1).optional(),
  status: z.enum(RUN_STATUSES).optional(),
  created_after: dateTimeQuery.optional(),
  created_before: dateTimeQuery.optional(),
});

/** A place for a stream or a wait (429 past the caps), given back when the response closes. */
async function hold(held: HeldConnections, res: Response) {
  const auth = authOf(res);
  const place = await held.hold({
    accountId: auth.accountId,
    keyId: auth.sessionId ? null : auth.keyId,
    sessionId: auth.sessionId ?? null,
  });
  // The client may have left while the place was being taken: then it is given back at once.
  whenClientGone(res, place.release);
  return place;
}

/**
 * Waits for the run's end while its credential lasts: `ended` says the key was revoked or the
 * session ended meanwhile, and the wait stopped there.
 */
async function waitHolding<R extends RunRecord>(
  deps: AppDeps,
  res: Response,
  place: HeldPlace,
  runId: string,
  read: () => Promise<R | null>,
  seconds: number,
): Promise<{ run: R | null; ended: boolean }> {
  const stop = AbortSignal.any([clientGone(res), place.signal]);
  const run = await waitForEnd(deps.realtime, runId, read, seconds, stop);
  return { run, ended: place.signal.aborted };
}

const credentialEnded = () =>
  new ApiError("UNAUTHORIZED", "The API key was revoked, or the session ended, while waiting.");

const runNotFound = (id: string) => new ApiError("RUN_NOT_FOUND", `No run with id ${JSON.stringify(id)}.`);

const byRunId = z.object({ runId: runIdView });
const PREFERENCE_APPLIED = {
  "Preference-Applied": header("Sent when Prefer: wait was honoured: the seconds waited at most", "wait=60"),
};
export const testRuns = perApp(({ redis, config }) =>
  testRunQuota(redis, config.QUEUE_PREFIX, config.TEST_RUNS_PER_DAY),
);

const readRun = (db: Db, auth: { accountId: string; mode: "live" | "test" }, id: string) =>
  findRunForAccount(db, id, auth.accountId, auth.mode);

const createRun = route({
  method: "post",
  path: "/models/{modelId+}/run",
  tags: ["Runs"],
  summary: "Start a run",
  description:
    "Validates input against the model's input schema (defaults applied), reserves estimated_tokens for live keys and queues the run. With an Idempotency-Key, the same key and body within 24 h return the original run. With `Prefer: wait` (or `wait=N`, 1 to 60 s; 60 by default) the answer waits until the run has ended or the time is up: an ended run answers with its terminal fields (status COMPLETED, FAILED or CANCELED), otherwise the answer is the usual `queued` one, and clients poll or stream. `Cancel-After` (`30s`, `5m`, `1h30m`, or seconds; 1 s to 24 h) cancels and refunds the run if it has not ended by then; its view then carries `error.code` CANCEL_AFTER. `webhook_events_filter` chooses what the run's own webhook_url receives (default completed and failed). Test keys run for free, but an account may start at most TEST_RUNS_PER_DAY test runs of compute-costing models (all but acme/echo) per 24 hours across its test keys: past it, 429 TEST_RUN_QUOTA_EXCEEDED with Retry-After (GET /account shows what is left). A run of a model with limited capacity (model servers, render threads) stays QUEUED until a place is free: accounts waiting for the same model take turns (in proportion to their weight), each account's own runs start oldest first, `priority: low` ones only when the account has no normal run waiting, and at most max_concurrent_runs of an account's runs execute at once (GET /account). A model with a queue cap answers 429 MODEL_QUEUE_FULL with Retry-After once that many runs wait.",
  params: z.object({ modelId }),
  headers: runHeaders,
  body: {
    schema: createRunBody,
    example: {
      input: { prompt: "a lighthouse at dawn", image_size: "landscape_16_9", num_images: 2 },
      webhook_url: "https://example.com/hooks/runs",
    },
  },
  guards: ["runCreation"],
  errors: [402, 403, 404, 409, 429],
  reply: {
    status: 201,
    schema: R.RunCreated,
    description:
      "The run, queued (or ended, with Prefer: wait), or the original run for a repeated Idempotency-Key",
    headers: PREFERENCE_APPLIED,
  },
  async handler({ params, headers, body }, { req, res, deps }) {
    const { db, runs, config, metrics, realtime } = deps;
    const auth = authOf(res);
    const id = params.modelId;
    const model = await deps.models(id);
    if (!model) throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(id)}.`);
    const refused = keyRefusal(model.id, auth);
    if (refused || !auth.keyId) throw refused;
    if (body.webhook_url)
      await checkWebhookUrl(body.webhook_url, "webhook_url", config.WEBHOOK_ALLOW_PRIVATE_URLS);
    // File inputs become files of the caller's (fetched, typed, stored) before the run is made.
    const input = await resolveFileInputs(
      deps.files,
      { accountId: auth.accountId, mode: auth.mode, apiKeyId: auth.keyId },
      fileFieldsFor(model),
      validateRunInput(model, body.input),
    );
    const admission = {
      runs,
      queueFigures: (modelId: string) => realtime.queue.model(modelId, true),
      testRuns: testRuns(deps),
    };
    const result = await admitRun(admission, {
      accountId: auth.accountId,
      apiKeyId: auth.keyId,
      keyMaxConcurrentRuns: auth.keyMaxConcurrentRuns ?? null,
      mode: auth.mode,
      model,
      account: await deps.accountScheduling(auth.accountId),
      priority: body.priority,
      input,
      body: req.body,
      webhookUrl: body.webhook_url ?? null,
      webhookEventsFilter: body.webhook_events_filter ?? null,
      cancelAfterMs: headers["cancel-after"],
      idempotencyKey: headers["idempotency-key"] ?? null,
      ...(deps.tracing.enabled && { traceParent: deps.tracing.traceparentOf(res.locals.span) }),
    });
    switch (result.kind) {
      case "insufficient":
        throw new ApiError(
          "INSUFFICIENT_TOKENS",
          `This run needs ${result.needed} tokens, more than the account has available.`,
        );
      case "over_budget":
        throw new ApiError("KEY_BUDGET_EXCEEDED", budgetRefusal(result.budget, result.needed));
      case "key_reused":
        throw new ApiError(
          "IDEMPOTENCY_KEY_REUSED",
          "This Idempotency-Key was used with a different request in the last 24 hours.",
        );
      case "model_not_active":
        throw new ApiError("MODEL_NOT_ACTIVE", `Model ${id} is ${result.status} and cannot run.`);
      case "replayed":
        res.set("Idempotent-Replayed", "true");
        break;
      case "created":
        metrics.runsCreated.inc({ model: id, mode: auth.mode });
        if (auth.mode === "live") metrics.tokensReserved.inc({ model: id }, result.run.estimatedTokens);
        break;
    }
    const created = presentCreatedRun(result.run, model.name);
    const wait = headers.prefer;
    if (wait === null) return { data: created };
    // The run exists now: past the caps on held requests, the preference is not honoured (RFC 7240
    // lets a server ignore it) rather than the creation answered 429 and retried into a twin.
    const place = await hold(deps.held, res).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === "RATE_LIMITED") return null;
      throw error;
    });
    if (!place) return { data: created };
    const { run, ended } = await waitHolding(
      deps,
      res,
      place,
      result.run.id,
      () => readRun(db, auth, result.run.id),
      wait,
    );
    // A credential that ended meanwhile stops the wait; the run exists, so it is answered as made.
    if (ended) return { data: created };
    res.set("Preference-Applied", `wait=${wait}`);
    return { data: await realtime.urls.resolve(presentWaitedRun(created, run)) };
  },
});

const listRunsRoute = route({
  method: "get",
  path: "/runs",
  tags: ["Runs"],
  summary: "List runs, newest first",
  query: listRunsQuery,
  reply: { status: 200, schema: R.RunList, description: "A page of runs and the cursor of the next" },
  async handler({ query }, { res, deps: { db, realtime } }) {
    const auth = authOf(res);
    const found = await listRuns(db, {
      accountId: auth.accountId,
      mode: auth.mode,
      modelId: query.model_id,
      status: query.status,
      createdAfter: query.created_after,
      createdBefore: query.created_before,
      after: query.cursor,
      limit: query.limit + 1,
    });
    const { page, nextCursor } = paginate(found, query.limit);
    const views = await realtime.urls.resolve(page.map((run) => presentRun(run)));
    return { data: { runs: views, next_cursor: nextCursor } };
  },
});

const readRunRoute = route({
  method: "get",
  path: "/runs/{runId}",
  tags: ["Runs"],
  summary: "Read a run's status and result",
  description:
    "A queued run also shows its queue_position and estimated_start_at. With `Prefer: wait` (or `wait=N`, 1 to 60 s) the answer waits until the run has ended or the time is up (a long poll).",
  params: byRunId,
  headers: waitHeaders,
  errors: [404],
  reply: {
    status: 200,
    schema: R.RunResponse,
    description: "The run, with the fields of its status",
    headers: PREFERENCE_APPLIED,
  },
  async handler({ params: { runId: id }, headers: { prefer: wait } }, { res, deps }) {
    const { db, realtime } = deps;
    const auth = authOf(res);
    let run: Awaited<ReturnType<typeof readRun>>;
    if (wait === null) run = await readRun(db, auth, id);
    else {
      const waited = await waitHolding(
        deps,
        res,
        await hold(deps.held, res),
        id,
        () => readRun(db, auth, id),
        wait,
      );
      if (waited.ended) throw credentialEnded();
      run = waited.run;
    }
    if (!run) throw runNotFound(id);
    if (wait !== null) res.set("Preference-Applied", `wait=${wait}`);
    return { data: await runView(realtime, run) };
  },
});

const runEvents = rawRoute({
  method: "get",
  path: "/runs/{runId}/events",
  tags: ["Runs"],
  summary: "Stream a run's events (Server-Sent Events)",
  description: [
    "A `text/event-stream` of the run's events, ending after the terminal one:",
    "- `status`: each transition; data is the run's view as GET /runs/{runId} shows it (QUEUED with queue_position and estimated_start_at, EXECUTING, then the terminal view with output, tokens and error). A queued run's status is sent again when its position changes.",
    "- `progress`: what the runner reports while executing (see RunProgress): units done and asked for, the output so far, the model's logs.",
    "- a comment line (`: heartbeat`) every EVENTS_HEARTBEAT_MS.",
    "Events carry ids: reconnect with `Last-Event-ID` to receive only what came after (EventSource does it by itself). An ended run's events are kept RUN_EVENTS_RETENTION_SECONDS; later its stream gives the terminal status alone.",
  ].join("\n"),
  params: byRunId,
  headers: z.object({
    "last-event-id": z.string().optional().meta({ description: "The id of the last event received" }),
  }),
  errors: [404],
  responses: {
    200: {
      description: "The event stream",
      content: {
        "text/event-stream": {
          schema: z.string().meta({
            example:
              'id: 1763800000000-0\nevent: status\ndata: {"run_id":"run_4ReEbWIXuDXbjwlguHgMmo","status":"QUEUED","model_id":"acme/pixel/fast","created_at":"2026-11-22T08:26:40.000Z","queue_position":3,"estimated_start_at":"2026-11-22T08:26:44.500Z"}\n\n',
          }),
        },
      },
    },
  },
  async handler({ params: { runId: id } }, { req, res, deps: { db, realtime, held } }) {
    const auth = authOf(res);
    const run = await readRun(db, auth, id);
    if (!run) throw runNotFound(id);
    const place = await hold(held, res);
    streamRunEvents(realtime, req, res, run, () => readRun(db, auth, id), place.signal);
  },
});

const cancelRun = route({
  method: "post",
  path: "/runs/{runId}/cancel",
  tags: ["Runs"],
  summary: "Cancel a queued or executing run",
  params: byRunId,
  errors: [404, 409],
  reply: { status: 200, schema: R.RunCanceled, description: "Canceled (also for a run already canceled)" },
  async handler({ params: { runId: id } }, { res, deps: { runs } }) {
    const result = await runs.cancel(authOf(res), id);
    switch (result.kind) {
      case "not_found":
        throw runNotFound(id);
      case "not_cancelable":
        throw new ApiError(
          "RUN_NOT_CANCELABLE",
          `Run ${id} is ${result.status.toLowerCase()} and can no longer be canceled.`,
        );
      case "canceled":
      case "already_canceled":
        return { data: presentCanceledRun(result.run) };
    }
  },
});

export const runRoutes: Route[] = [createRun, listRunsRoute, readRunRoute, runEvents, cancelRun];
