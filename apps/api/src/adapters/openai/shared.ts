// What the OpenAI adapter's routes share: a run started from an OpenAI request (its held place
// first, for the synchronous calls), a failed run as OpenAI's error, the run's output files.
import { readStoredBytes } from "@svc/storage";
import type { Response } from "express";
import { z } from "zod";
import {
  ApiError,
  OpenAIParamError,
  inputFromOpenAI,
  openAIParam,
  runFilesIn,
  servedMediaType,
  type OpenAIAsk,
  type RunRecord,
} from "@svc/core";
import { clientGone } from "../../http/clientGone.js";
import type { RouteContext } from "../../http/route.js";
import { secretsKey } from "../../secrets.js";
import { header } from "../../openapi/register.js";
import { idempotencyKeyHeader, startSyncRun, runnableModel, startRun } from "../../runs/startRun.js";
import type { AppDeps } from "../../deps.js";

/** The headers a creating route reads (Idempotency-Key, as long as our API takes it). */
export const runCreationHeaders = z.object({ "idempotency-key": idempotencyKeyHeader });

export const TOKENS_HEADER = "X-Tokens-Charged";
export const tokensHeader = {
  [TOKENS_HEADER]: header("Tokens the run was charged (0 for test keys)", "5"),
};
export const charged = (res: Response, run: { tokensCharged: number | null }) =>
  res.set(TOKENS_HEADER, String(run.tokensCharged ?? 0));

type Output = "image" | "video" | "audio";
export const OUTPUT_FLAG = { image: "outputsImage", video: "outputsVideo", audio: "outputsAudio" } as const;

/** A refusal naming OpenAI's parameter, as its clients show it (error.param). */
export const paramError = (param: string, message: string) =>
  new ApiError("VALIDATION_ERROR", message, [{ path: param, message }]);

/**
 * Starts a run of `modelId` for an OpenAI-style request: the model must make `output`; the
 * request's parameters become the model's input, and a field that does not validate is reported
 * under the parameter it came from.
 */
export async function startOpenAIRun(
  ctx: RouteContext,
  modelId: string,
  output: Output,
  ask: OpenAIAsk,
  body: unknown,
) {
  const { deps, res, req } = ctx;
  const model = await runnableModel(deps, res, modelId);
  if (!model[OUTPUT_FLAG[output]])
    throw paramError("model", `${model.id} does not make ${output === "audio" ? "audio" : `${output}s`}.`);
  let translated;
  try {
    translated = inputFromOpenAI(model.inputSchema, ask);
  } catch (error) {
    if (error instanceof OpenAIParamError) throw paramError(error.param, error.message);
    throw error;
  }
  try {
    return await startRun(deps, res, {
      api: "openai",
      modelId: model.id,
      input: translated.input,
      body,
      idempotencyKey: req.get("idempotency-key") ?? null,
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === "VALIDATION_ERROR" && error.details?.length) {
      const details = error.details.map((d) => ({ ...d, path: openAIParam(translated.paramOf, d.path) }));
      throw new ApiError("VALIDATION_ERROR", `${details[0]!.path}: ${details[0]!.message}`, details);
    }
    throw error;
  }
}

/** A synchronous call's run (images, speech): its waiting place taken before it is made. */
export async function syncOpenAIRun(...args: Parameters<typeof startOpenAIRun>) {
  const { started, place } = await startSyncRun(args[0].deps, args[0].res, () => startOpenAIRun(...args));
  return { run: started.run, place };
}

/** A run that failed, as the synchronous call's error: the client's fault (400) or the run's (502). */
export function failure(run: RunRecord): ApiError {
  const message = run.errorMessage || "The run failed.";
  if (run.status === "CANCELED") return new ApiError("RUN_FAILED", "The run was canceled.");
  return run.errorCode === "CONTENT_POLICY" || run.errorCode === "INVALID_INPUT"
    ? new ApiError("VALIDATION_ERROR", message)
    : new ApiError("RUN_FAILED", message);
}

/**
 * The files the run made, in its output's order (their stable URLs and store keys): never merely
 * any URL of ours its output names (a model that echoes its input may name another run's).
 */
export const outputFiles = (deps: AppDeps, run: { id: string; output: unknown }) =>
  runFilesIn(run.output, deps.settings.PUBLIC_BASE_URL, secretsKey(deps), run.id);

export async function readOutput(deps: AppDeps, key: string): Promise<Buffer> {
  const bytes = await readStoredBytes(deps.outputs.store, key);
  if (!bytes) throw new ApiError("OUTPUT_EXPIRED", "The output file is no longer stored.");
  return bytes;
}

/** Streams one output file, with its media type. */
export async function sendOutput(deps: AppDeps, res: Response, key: string) {
  const object = await deps.outputs.store.read(key, {}, clientGone(res));
  if (!object?.body) throw new ApiError("OUTPUT_EXPIRED", "The output file is no longer stored.");
  res.status(200).set({
    "Content-Type": servedMediaType(key) ?? "application/octet-stream",
    ...(object.headers["Content-Length"] && { "Content-Length": object.headers["Content-Length"] }),
  });
  for await (const chunk of object.body)
    if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
  res.end();
}

// ---------------------------------------------------------------- models
