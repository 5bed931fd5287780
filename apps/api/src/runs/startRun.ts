// Starting a run and waiting for it, shared by every API style that makes runs (ours at
// /api/v1, Replicate's at /replicate/v1, OpenAI's at /openai/v1): each only translates its request
// into a StartRun and the run it gets back into its own answer, so admission, billing, budgets,
// allow-lists, test keys, idempotency and fair share are the same whichever way a run comes in.
import type { Response } from "express";
import { z } from "zod";
import {
  ApiError,
  budgetRefusal,
  type Mode,
  type ModelRecord,
  type RunApi,
  type RunPriority,
  type WebhookFilterValue,
} from "@svc/core";
import {
  admitRun,
  type CreatedRun,
  findRunForAccount,
  keyRefusal,
  resolveFileInputs,
  resolveLoraInputs,
} from "@svc/use-cases";
import { authOf } from "../auth/authenticate.js";
import { clientGone, whenClientGone } from "../http/clientGone.js";
import { perApp } from "../http/route.js";
import type { AppDeps } from "../deps.js";
import type { HeldConnections, HeldPlace } from "./heldConnections.js";
import { fileFieldsFor, validateRunInput } from "./inputValidator.js";
import { waitForEnd } from "./realtime.js";
import { testRunQuota } from "./testRunQuota.js";
import { checkWebhookUrl } from "../webhooks/checkUrl.js";

/** The Idempotency-Key header, as every API style that makes runs takes it. */
export const idempotencyKeyHeader = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .meta({ description: "Replays the run made with the same key and body within 24 hours" });

export const testRuns = perApp(({ redis, settings }) =>
  testRunQuota(redis, settings.QUEUE_PREFIX, settings.TEST_RUNS_PER_DAY),
);

export interface StartRun {
  /** The API style the request came through. */
  api: RunApi;
  modelId: string;
  input: Record<string, unknown>;
  /** What the idempotency check compares: the request as its API style received it. */
  body: unknown;
  webhookUrl?: string | null;
  webhookEventsFilter?: readonly WebhookFilterValue[] | null;
  priority?: RunPriority;
  cancelAfterMs?: number | null;
  idempotencyKey?: string | null;
}

export interface StartedRun {
  run: CreatedRun;
  model: ModelRecord;
  /** An Idempotency-Key's earlier run, answered again. */
  replayed: boolean;
  /** The input the run was made with: defaults applied, file inputs as our files. */
  input: Record<string, unknown>;
}

/** A run just made, as its record reads before anything has happened to it. */
export const queuedRecord = ({ run, input }: StartedRun) => ({
  ...run,
  input,
  status: "QUEUED" as const,
  tokensCharged: null,
  output: null,
  errorCode: null,
  errorMessage: null,
  startedAt: null,
  completedAt: null,
  canceledAt: null,
  unitsCompleted: 0,
  unitsRequested: 1,
});

/** A model of the catalogue as the API holds it. */
export type RunnableModel = NonNullable<Awaited<ReturnType<AppDeps["models"]>>>;

/** The model a caller may run: 404 when there is none, 403 when its key may not run it. */
export async function runnableModel(deps: AppDeps, res: Response, id: string) {
  const auth = authOf(res);
  const model = await deps.models(id);
  if (!model) throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(id)}.`);
  const refused = keyRefusal(model.id, auth);
  if (refused) throw refused;
  return model;
}

/**
 * A run's input as it is made: validated against the model's schema (400 naming the field), its
 * file inputs taken in as files of the owner's (fetched, typed, stored), its LoRAs made weights of
 * theirs and checked against the model's declaration. Every way a run is made passes here: a
 * request, and each line of a batch.
 */
export async function prepareRunInput(
  deps: AppDeps,
  owner: { accountId: string; mode: Mode; apiKeyId: string | null },
  model: RunnableModel,
  raw: Record<string, unknown>,
): Promise<{ input: Record<string, unknown>; weights: string[] }> {
  const withFiles = await resolveFileInputs(
    deps.files,
    owner,
    fileFieldsFor(model),
    validateRunInput(model, raw),
  );
  return resolveLoraInputs(deps.weights, owner, model.inputSchema, withFiles);
}

/**
 * Validates the input against the model's schema, takes its file inputs in, admits and creates
 * the run (reserving its tokens), or throws the refusal as an ApiError.
 */
export async function startRun(deps: AppDeps, res: Response, request: StartRun): Promise<StartedRun> {
  const { runs, settings, metrics, realtime } = deps;
  const auth = authOf(res);
  const model = await runnableModel(deps, res, request.modelId);
  // runnableModel's keyRefusal has refused a caller without a key (400, naming X-Api-Key-Id).
  const keyId = auth.keyId!;
  if (request.webhookUrl)
    await checkWebhookUrl(request.webhookUrl, "webhook_url", settings.WEBHOOK_ALLOW_PRIVATE_URLS);
  const owner = { accountId: auth.accountId, mode: auth.mode, apiKeyId: keyId };
  const { input, weights } = await prepareRunInput(deps, owner, model, request.input);
  const result = await admitRun(
    {
      runs,
      queueFigures: (modelId: string) => realtime.queue.model(modelId, true),
      testRuns: testRuns(deps),
    },
    {
      accountId: auth.accountId,
      apiKeyId: keyId,
      keyMaxConcurrentRuns: auth.keyMaxConcurrentRuns ?? null,
      mode: auth.mode,
      model,
      account: await deps.accountScheduling(auth.accountId),
      priority: request.priority ?? "normal",
      input,
      weights,
      body: request.body,
      webhookUrl: request.webhookUrl ?? null,
      webhookEventsFilter: request.webhookEventsFilter ?? null,
      cancelAfterMs: request.cancelAfterMs ?? null,
      idempotencyKey: request.idempotencyKey ?? null,
      ...(deps.tracing.enabled && { traceParent: deps.tracing.traceparentOf(res.locals.span) }),
      api: request.api,
    },
  );
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
      throw new ApiError("MODEL_NOT_ACTIVE", `Model ${model.id} is ${result.status} and cannot run.`);
    case "replayed":
      res.set("Idempotent-Replayed", "true");
      return { run: result.run, model, replayed: true, input };
    case "created":
      metrics.runsCreated.inc({ model: model.id, mode: auth.mode });
      if (auth.mode === "live") metrics.tokensReserved.inc({ model: model.id }, result.run.estimatedTokens);
      return { run: result.run, model, replayed: false, input };
  }
}

/** The caller's run by id (its account, its key's mode), or null. */
export const readRun = (deps: AppDeps, res: Response, id: string) => {
  const auth = authOf(res);
  return findRunForAccount(deps.db, id, auth.accountId, auth.mode);
};

/** A place for a stream or a wait (429 past the caps), given back when the response closes. */
export async function hold(held: HeldConnections, res: Response): Promise<HeldPlace> {
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

export type Waited<R> =
  /** The run's state when the wait ended (ended, or not within the time). */
  | { kind: "read"; run: R | null }
  /** The key was revoked or the session ended meanwhile: the wait stopped there. */
  | { kind: "credential_ended" }
  /** Past the caps on held requests: nobody waited. */
  | { kind: "not_held" };

/**
 * Waits up to `seconds` for the run's end while the client is there and its credential lasts.
 * `spare`: past the caps on held requests, answer not_held rather than 429 (a created run must
 * not be answered 429 and retried into a twin; RFC 7240 lets a server ignore Prefer).
 */
export async function waitForRun(
  deps: AppDeps,
  res: Response,
  runId: string,
  seconds: number,
  spare = false,
): Promise<Waited<Awaited<ReturnType<typeof readRun>>>> {
  const place = await hold(deps.held, res).catch((error: unknown) => {
    if (spare && error instanceof ApiError && error.code === "RATE_LIMITED") return null;
    throw error;
  });
  if (!place) return { kind: "not_held" };
  return waitHeld(deps, res, runId, seconds, place);
}

/** Waits for the run's end in a place already held (taken before the run was made). */
async function waitHeld(
  deps: AppDeps,
  res: Response,
  runId: string,
  seconds: number,
  place: HeldPlace,
): Promise<Waited<Awaited<ReturnType<typeof readRun>>>> {
  const stop = AbortSignal.any([clientGone(res), place.signal]);
  const run = await waitForEnd(deps.realtime, runId, () => readRun(deps, res, runId), seconds, stop);
  if (place.signal.aborted) return { kind: "credential_ended" };
  return { kind: "read", run };
}

/**
 * A synchronous call's run: the place it waits in is taken first, so that past the caps the call
 * is a 429 with nothing made or charged (which a client may retry), then the run is made by
 * `start`. From then on every answer, an error too, tells clients not to retry
 * (`x-should-retry: false`, which OpenAI's clients obey): a retry would make another run.
 */
export async function startSyncRun(
  deps: AppDeps,
  res: Response,
  start: () => Promise<StartedRun>,
): Promise<{ started: StartedRun; place: HeldPlace }> {
  const place = await hold(deps.held, res);
  try {
    const started = await start();
    res.set("x-should-retry", "false");
    return { started, place };
  } catch (error) {
    place.release();
    throw error;
  }
}

/**
 * The one rule for a run whose caller will not receive it: a synchronous call that ended without
 * it (its client left, or the wait ran out) or a creation's wait its client left before the
 * answer (Replicate's `Prefer: wait`; the client never learned the run's id). It is canceled,
 * charged by the partial-cancel rules (what it delivered), so that nobody pays for work nobody
 * will receive. Our own `Prefer: wait` does not apply it: its contract is a long poll over a run
 * that goes on (docs/api.md), so a client gone mid-wait finds its run by webhook or listing.
 */
export async function abandonRun(deps: AppDeps, res: Response, runId: string): Promise<void> {
  await deps.runs.cancel(authOf(res), runId).catch((error: unknown) => {
    deps.logger.warn("cancel of an abandoned run failed", { run_id: runId, error: (error as Error).message });
  });
}

/**
 * The synchronous calls of other API styles (OpenAI's images and speech, a Replicate wait that
 * must end in an answer): the run's end, waited for up to SYNC_WAIT_MAX_SECONDS. A client that
 * leaves first, or a wait that runs out, cancels the run (charged by the partial-cancel rules:
 * what was delivered) so that nobody pays for work nobody will receive.
 */
export async function runToEnd(deps: AppDeps, res: Response, runId: string, place: HeldPlace) {
  const waited = await waitHeld(deps, res, runId, deps.settings.SYNC_WAIT_MAX_SECONDS, place);
  const run = waited.kind === "read" ? waited.run : null;
  if (run && run.status !== "QUEUED" && run.status !== "EXECUTING") return run;
  await abandonRun(deps, res, runId);
  if (waited.kind === "credential_ended")
    throw new ApiError("UNAUTHORIZED", "The API key was revoked, or the session ended, while waiting.");
  throw new ApiError(
    "WAIT_TIMEOUT",
    `The run did not end within ${deps.settings.SYNC_WAIT_MAX_SECONDS} s (SYNC_WAIT_MAX_SECONDS) and was canceled.`,
  );
}
