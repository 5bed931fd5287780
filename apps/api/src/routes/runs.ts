import { z } from "zod";
import {
  ApiError,
  RUN_PRIORITIES,
  RUN_STATUSES,
  WEBHOOK_FILTER_VALUES,
  presentCanceledRun,
  presentCreatedRun,
  presentRun,
  presentWaitedRun,
  runIdView,
} from "@svc/core";
import { listRuns } from "@svc/use-cases";
import { runView, streamRunEvents } from "../runs/realtime.js";
import { hold, readRun, startRun, waitForRun } from "../runs/startRun.js";
import { preferHeader, runHeaders } from "../runs/headers.js";
import { authOf } from "../auth/authenticate.js";
import { cursorSchema, dateTimeQuery, paginate } from "../http/cursor.js";
import { pageLimit } from "../http/validate.js";
import { rawRoute, route, type Route } from "../http/route.js";
import * as R from "../openapi/responses.js";
import { header } from "../openapi/register.js";
import { modelId } from "../http/params.js";

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

const waitHeaders = z.object({ prefer: preferHeader });

const listRunsQuery = z.object({
  limit: pageLimit,
  cursor: cursorSchema,
  model_id: z.string().min(1).optional(),
  status: z.enum(RUN_STATUSES).optional(),
  batch_id: z.string().min(1).max(100).optional().meta({ description: "The runs of one batch (its items)" }),
  created_after: dateTimeQuery.optional(),
  created_before: dateTimeQuery.optional(),
});

const credentialEnded = () =>
  new ApiError("UNAUTHORIZED", "The API key was revoked, or the session ended, while waiting.");

const runNotFound = (id: string) => new ApiError("RUN_NOT_FOUND", `No run with id ${JSON.stringify(id)}.`);

const byRunId = z.object({ runId: runIdView });
const PREFERENCE_APPLIED = {
  "Preference-Applied": header("Sent when Prefer: wait was honoured: the seconds waited at most", "wait=60"),
};

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
    const { run, model } = await startRun(deps, res, {
      api: "native",
      modelId: params.modelId,
      input: body.input,
      body: req.body,
      webhookUrl: body.webhook_url ?? null,
      webhookEventsFilter: body.webhook_events_filter ?? null,
      priority: body.priority,
      cancelAfterMs: headers["cancel-after"],
      idempotencyKey: headers["idempotency-key"] ?? null,
    });
    const created = presentCreatedRun(run, model.name);
    const wait = headers.prefer;
    if (wait === null) return { data: created };
    // The run exists now: whatever stops the wait, it is answered as made.
    const waited = await waitForRun(deps, res, run.id, wait, true);
    if (waited.kind !== "read") return { data: created };
    res.set("Preference-Applied", `wait=${wait}`);
    return { data: await deps.realtime.urls.resolve(presentWaitedRun(created, waited.run)) };
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
      batchId: query.batch_id,
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
    let run: Awaited<ReturnType<typeof readRun>>;
    if (wait === null) run = await readRun(deps, res, id);
    else {
      const waited = await waitForRun(deps, res, id, wait);
      if (waited.kind !== "read") throw credentialEnded();
      run = waited.run;
    }
    if (!run) throw runNotFound(id);
    if (wait !== null) res.set("Preference-Applied", `wait=${wait}`);
    return { data: await runView(deps.realtime, run) };
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
  async handler({ params: { runId: id } }, { req, res, deps }) {
    const run = await readRun(deps, res, id);
    if (!run) throw runNotFound(id);
    const place = await hold(deps.held, res);
    streamRunEvents(deps.realtime, req, res, run, () => readRun(deps, res, id), place.signal);
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
