// Whether a run may be created: the rules checked before any token moves, in their order, and the
// test-run quota given back when the creation made no run. Routes only translate the answer; the
// lifecycle (lifecycle.ts) then reserves and inserts, and refuses what needs the database to know
// (tokens, a key's budget, a reused Idempotency-Key, a model no longer active).
//
//   1. the key may run the model (allowed_models)         403 MODEL_NOT_ALLOWED
//   2. the run is attributed to one of the account's keys  400 VALIDATION_ERROR
//   3. the model's queue has room (max_queue)              429 MODEL_QUEUE_FULL + Retry-After
//   4. a test run of a compute-costing model has quota     429 TEST_RUN_QUOTA_EXCEEDED + Retry-After
import { ApiError, costsCompute, poolOf } from "@svc/core";
import type { CreateRunCommand, CreateRunResult, RunLifecycle } from "./lifecycle.js";

/** The API key a run is asked for with. */
export interface AdmittingKey {
  /** Null for a console session that named no key of the account. */
  keyId: string | null;
  /** The models the key may run; absent or null: all. */
  allowedModels?: readonly string[] | null | undefined;
}

/** What a model's queue holds now, as its cap reads it. */
export interface QueueFigures {
  queueLength: number;
  runTimeP50Ms: number | null;
  capacity: number | null;
}

/** The refusal that needs no I/O (rules 1 and 2), or null: checked before anything else. */
export function keyRefusal(modelId: string, key: AdmittingKey): ApiError | null {
  if (key.allowedModels && !key.allowedModels.includes(modelId))
    return new ApiError(
      "MODEL_NOT_ALLOWED",
      `This API key may run only ${key.allowedModels.join(", ")}; ${modelId} is not among them.`,
    );
  if (!key.keyId)
    return new ApiError("VALIDATION_ERROR", "A run is attributed to one of the account's API keys.", [
      { path: "X-Api-Key-Id", message: "expected the id of an active API key of this mode" },
    ]);
  return null;
}

/**
 * A model's queue cap (fal's max queue length): past it, 429 with the time one place should take
 * to free. Read before the run is made, so concurrent creations may pass it by the few in flight.
 */
export function queueFullRefusal(modelId: string, cap: number, figures: QueueFigures): ApiError | null {
  if (figures.queueLength < cap) return null;
  const perStartMs = (figures.runTimeP50Ms ?? 1_000) / Math.max(1, figures.capacity ?? 1);
  return new ApiError(
    "MODEL_QUEUE_FULL",
    `${figures.queueLength} runs already wait for ${modelId}, its queue cap; try again later.`,
    undefined,
    { "Retry-After": String(Math.max(1, Math.ceil(perStartMs / 1_000))) },
  );
}

export interface AdmissionDeps {
  runs: Pick<RunLifecycle, "create">;
  /** A pooled model's queue now. */
  queueFigures(modelId: string): Promise<QueueFigures>;
  /** The account's daily test runs: take throws its 429 when none is left. */
  testRuns: { take(accountId: string): Promise<void>; giveBack(accountId: string): Promise<void> };
}

/**
 * Admits and creates a run whose key passed keyRefusal (checked first, before the input is read):
 * throws the refusal of rule 3 or 4 (nothing changed), else creates it. A test run counted against
 * the quota that made no run (a replay, a refusal, an error) is given back.
 */
export async function admitRun(
  deps: AdmissionDeps,
  command: CreateRunCommand & { model: CreateRunCommand["model"] & { maxQueue: number | null } },
): Promise<CreateRunResult> {
  const { model } = command;
  if (model.maxQueue !== null && poolOf(model.runner)) {
    const full = queueFullRefusal(model.id, model.maxQueue, await deps.queueFigures(model.id));
    if (full) throw full;
  }
  // Test runs are free: those that cost compute are counted against the account's daily quota.
  const quota = command.mode === "test" && costsCompute(model.runner) ? deps.testRuns : null;
  await quota?.take(command.accountId);
  const result = await deps.runs.create(command).catch(async (error: unknown) => {
    await quota?.giveBack(command.accountId).catch(() => {});
    throw error;
  });
  if (quota && result.kind !== "created") await quota.giveBack(command.accountId);
  return result;
}
