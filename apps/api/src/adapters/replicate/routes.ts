// Replicate's HTTP API (replicate.com/docs/reference/http) over our runs, at /replicate/v1: so
// that `new Replicate({ auth: "svc_live_…", baseUrl: "<service>/replicate/v1" })` works. Each
// route translates its request into ours (startRun, the run reads, cancel, files) and our answer
// into Replicate's shape (packages/core adapters/replicate.ts); nothing here decides anything.
import type { Response } from "express";
import { z } from "zod";
import {
  ApiError,
  REPLICATE_WEBHOOK_EVENTS,
  isTerminal,
  loraFieldOf,
  lorasFromReplicate,
  modelOfVersion,
  presentPrediction,
  presentReplicateModel,
  webhookFilterOf,
  type PredictionRun,
} from "@svc/core";
import { findModel, listModels, listRuns } from "@svc/use-cases";
import { authOf } from "../../auth/authenticate.js";
import { cursorSchema, paginate } from "../../http/cursor.js";
import { rawRoute, route, type Route, type RouteContext } from "../../http/route.js";
import { pageLimit, queryInt } from "../../http/validate.js";
import { modelId } from "../../http/params.js";
import { runHeaders } from "../../runs/headers.js";
import { defaultSigningSecret } from "../../secrets.js";
import { waitForEnd } from "../../runs/realtime.js";
import { clientGone } from "../../http/clientGone.js";
import {
  abandonRun,
  hold,
  queuedRecord,
  readRun,
  startRun,
  waitForRun,
  type StartedRun,
} from "../../runs/startRun.js";
import type { AppDeps } from "../../deps.js";
import * as S from "./schemas.js";

import { base, byId, notFound, tags, TOKENS_HEADER, tokensHeader } from "./shared.js";
import { deleteFileRoute, downloadFile, getFileRoute, listFilesRoute, uploadFile } from "./files.js";

async function predictionView(deps: AppDeps, run: PredictionRun) {
  const shown = presentPrediction(run, base(deps));
  return { ...shown, output: await deps.realtime.urls.resolve(shown.output) };
}

/** The answer of one prediction, with its charge in a header too. */
function prediction(deps: AppDeps, res: Response, run: PredictionRun) {
  if (run.tokensCharged !== null) res.set(TOKENS_HEADER, String(run.tokensCharged));
  return predictionView(deps, run);
}

const predictionBody = {
  input: z.record(z.string(), z.unknown(), "expected an object"),
  webhook: z
    .url({ protocol: /^https$/, error: "expected an https:// URL" })
    .max(2048)
    .optional(),
  webhook_events_filter: z
    .array(z.enum(REPLICATE_WEBHOOK_EVENTS, `expected ${REPLICATE_WEBHOOK_EVENTS.join(", ")}`))
    .min(1)
    .max(REPLICATE_WEBHOOK_EVENTS.length)
    .optional(),
  stream: z.boolean().optional().meta({ description: "Taken; every prediction has urls.stream" }),
};
const modelPredictionBody = z.object(predictionBody);
const versionPredictionBody = z.object({
  ...predictionBody,
  version: z.string().min(1).max(300).meta({
    description: "A model id (owner/name, or three segments such as acme/pixel/fast), or owner/name:version",
  }),
});

/**
 * Creates the run and answers it as a prediction; with Prefer: wait, once it has ended or the time
 * is up. A run still going when the wait ends shows `starting`: Replicate's clients poll only from
 * that status (replicate.run takes any other as the end). A client gone during the wait cancels
 * the run (charged what it delivered), as nobody is left to receive it.
 */
async function createPrediction(
  ctx: RouteContext,
  modelIdOf: string,
  body: z.output<typeof modelPredictionBody>,
  headers: z.output<typeof runHeaders>,
) {
  const { deps, res, req } = ctx;
  // Replicate's LoRA inputs (lora_weights, lora_scale, ...) as our loras, for a model that takes them.
  const model = await deps.models(modelIdOf);
  const input = model && loraFieldOf(model.inputSchema) ? lorasFromReplicate(body.input) : body.input;
  const started: StartedRun = await startRun(deps, res, {
    api: "replicate",
    modelId: modelIdOf,
    input,
    body: req.body,
    webhookUrl: body.webhook ?? null,
    webhookEventsFilter: body.webhook ? webhookFilterOf(body.webhook_events_filter) : null,
    cancelAfterMs: headers["cancel-after"],
    idempotencyKey: headers["idempotency-key"] ?? null,
  });
  const { run } = started;
  const queued: PredictionRun = queuedRecord(started);
  const wait = headers.prefer;
  if (wait === null && !started.replayed) return prediction(deps, res, queued);
  if (wait === null) return prediction(deps, res, (await readRun(deps, res, run.id)) ?? queued);
  const waited = await waitForRun(deps, res, run.id, wait, true);
  const read = waited.kind === "read" ? waited.run : null;
  if (read && isTerminal(read.status)) {
    res.set("Preference-Applied", `wait=${wait}`);
    return prediction(deps, res, read);
  }
  if (res.closed) await abandonRun(deps, res, run.id);
  return prediction(deps, res, { ...(read ?? queued), status: "QUEUED" });
}

const created = {
  status: 201,
  schema: S.Prediction,
  description: "The prediction (ended, with Prefer: wait, if it ended within the wait)",
  headers: tokensHeader,
};

const createModelPrediction = route({
  method: "post",
  path: "/models/{modelId+}/predictions",
  tags,
  summary: "Create a prediction of a model (Replicate's models.predictions.create; replicate.run)",
  description:
    "Starts a run of the model, as POST /api/v1/models/{modelId}/run does (same admission, billing, budgets, test keys, fair share). `Prefer: wait` (or wait=N, 1 to 60 s) answers once it has ended or the time is up (a run still going then shows status starting); a client gone during the wait cancels the run. `Idempotency-Key` and `Cancel-After` as on our own route.",
  params: z.object({ modelId }),
  headers: runHeaders,
  body: { schema: modelPredictionBody, example: { input: { prompt: "a lighthouse at dawn" } } },
  guards: ["runCreation"],
  errors: [402, 403, 404, 409, 422],
  reply: created,
  handler: ({ params, body, headers }, ctx) => createPrediction(ctx, params.modelId, body, headers),
});

const createVersionPrediction = route({
  method: "post",
  path: "/predictions",
  tags,
  summary: "Create a prediction of a version (Replicate's predictions.create with `version`)",
  description:
    "`version` names the model: its id (acme/pixel-hq, or acme/pixel/fast: ids of three segments are reached this way), or owner/name:version (our models have one version each; the part after the colon is not checked).",
  headers: runHeaders,
  body: {
    schema: versionPredictionBody,
    example: { version: "acme/pixel/fast", input: { prompt: "a lighthouse at dawn" } },
  },
  guards: ["runCreation"],
  errors: [402, 403, 404, 409, 422],
  reply: created,
  handler: ({ body, headers }, ctx) => createPrediction(ctx, modelOfVersion(body.version), body, headers),
});

const getPrediction = route({
  method: "get",
  path: "/predictions/{id}",
  tags,
  summary: "Read a prediction",
  params: byId,
  errors: [404],
  reply: { status: 200, schema: S.Prediction, description: "The prediction", headers: tokensHeader },
  async handler({ params }, { deps, res }) {
    const run = await readRun(deps, res, params.id);
    if (!run) throw notFound(params.id);
    return prediction(deps, res, run);
  },
});

const listPredictions = route({
  method: "get",
  path: "/predictions",
  tags,
  summary: "List predictions, newest first (every run of the key's mode, whichever API made it)",
  query: z.object({ cursor: cursorSchema, limit: pageLimit }),
  reply: { status: 200, schema: S.PredictionPage, description: "A page; `next` is the next page's URL" },
  async handler({ query }, { deps, res }) {
    const auth = authOf(res);
    const found = await listRuns(deps.db, {
      accountId: auth.accountId,
      mode: auth.mode,
      after: query.cursor,
      limit: query.limit + 1,
    });
    const { page, nextCursor } = paginate(found, query.limit);
    const results = await Promise.all(page.map((run) => predictionView(deps, run)));
    return {
      previous: null,
      next: nextCursor && `${base(deps)}/predictions?cursor=${nextCursor}&limit=${query.limit}`,
      results,
    };
  },
});

const cancelPrediction = route({
  method: "post",
  path: "/predictions/{id}/cancel",
  tags,
  summary: "Cancel a prediction",
  description:
    "Cancels a run still queued or executing (charged by our partial-cancel rules: what it delivered). A prediction that has already ended is answered as it is, as Replicate does.",
  params: byId,
  errors: [404],
  reply: { status: 200, schema: S.Prediction, description: "The prediction after the cancel" },
  async handler({ params }, { deps, res }) {
    const result = await deps.runs.cancel(authOf(res), params.id);
    if (result.kind === "not_found") throw notFound(params.id);
    const run = await readRun(deps, res, params.id);
    if (!run) throw notFound(params.id);
    return prediction(deps, res, run);
  },
});

const streamPrediction = rawRoute({
  method: "get",
  path: "/predictions/{id}/stream",
  tags,
  summary: "A prediction's output as Server-Sent Events (Replicate's stream: output, then done)",
  description:
    "Ends with the run: `output` (its output as JSON) and `done` for a run that succeeded, `error` (`{detail}`) for one that failed, `done` with `{reason: canceled}` for one canceled. A comment line every 15 s keeps proxies from closing the stream. Our own event stream (GET /api/v1/runs/{id}/events) also carries progress. The stream holds a place among the key's held connections (429 past the caps, as our event streams) and ends when the key is revoked.",
  params: byId,
  errors: [404, 429],
  responses: {
    200: {
      description: "The event stream",
      content: { "text/event-stream": { schema: { type: "string" } } },
    },
  },
  async handler({ params }, { deps, res }) {
    const first = await readRun(deps, res, params.id);
    if (!first) throw notFound(params.id);
    // A place among the held connections, as every long-held response takes (429 past the caps);
    // it ends the stream when the key is revoked or the session ends.
    const place = await hold(deps.held, res);
    res.status(200).set({ "Content-Type": "text/event-stream", "Cache-Control": "no-store" }).flushHeaders();
    const beat = setInterval(() => res.write(": ping\n\n"), 15_000);
    const gone = AbortSignal.any([clientGone(res), place.signal]);
    const send = (event: string, data: unknown) =>
      res.writableEnded ||
      res.write(`event: ${event}\ndata: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
    try {
      let run = first;
      while (!isTerminal(run.status) && !gone.aborted) {
        run = (await waitForEnd(deps.realtime, run.id, () => readRun(deps, res, run.id), 3_600, gone)) ?? run;
        if (deps.realtime.closing.aborted) break;
      }
      if (place.signal.aborted && !isTerminal(run.status)) {
        send("error", { detail: "The API key was revoked, or the session ended." });
        return;
      }
      if (run.status === "COMPLETED") {
        send("output", (await predictionView(deps, run)).output);
        send("done", {});
      } else if (run.status === "FAILED") send("error", { detail: run.errorMessage ?? "" });
      else if (run.status === "CANCELED") send("done", { reason: "canceled" });
    } finally {
      clearInterval(beat);
      place.release();
      res.end();
    }
  },
});

const MODELS_PAGE = 100;

const listModelsRoute = route({
  method: "get",
  path: "/models",
  tags,
  summary: "List models (the catalogue's listed, active models)",
  query: z.object({ cursor: queryInt(0, Number.MAX_SAFE_INTEGER, 0).meta({ description: "Offset" }) }),
  reply: { status: 200, schema: S.ModelPage, description: "A page of models" },
  async handler({ query }, { deps }) {
    const { models, total } = await listModels(deps.db, { limit: MODELS_PAGE, offset: query.cursor });
    const next =
      query.cursor + MODELS_PAGE < total ? `${base(deps)}/models?cursor=${query.cursor + MODELS_PAGE}` : null;
    return { previous: null, next, results: models.map((m) => presentReplicateModel(m, base(deps))) };
  },
});

const getModel = route({
  method: "get",
  path: "/models/{modelId+}",
  tags,
  summary: "A model, with its input schema as its version's openapi_schema",
  params: z.object({ modelId }),
  errors: [404],
  reply: { status: 200, schema: S.ReplicateModel, description: "The model" },
  async handler({ params }, { deps }) {
    const model = await findModel(deps.db, params.modelId);
    if (!model) throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(params.modelId)}.`);
    return presentReplicateModel(model, base(deps));
  },
});

const webhookSecret = route({
  method: "get",
  path: "/webhooks/default/secret",
  tags,
  summary: "The secret predictions' webhooks are signed with (for validateWebhook)",
  guards: ["owners"],
  reply: {
    status: 200,
    schema: S.WebhookSecret,
    description: "The account's default secret for the key's mode",
  },
  handler: async (_input, ctx) => ({ key: await defaultSigningSecret(ctx) }),
});

export const replicateRoutes: Route[] = [
  createModelPrediction,
  getModel,
  listModelsRoute,
  createVersionPrediction,
  listPredictions,
  getPrediction,
  cancelPrediction,
  streamPrediction,
  uploadFile,
  listFilesRoute,
  getFileRoute,
  downloadFile,
  deleteFileRoute,
  webhookSecret,
];
