// OpenAI's Batch API (issue #61) in our terms, pure: a line of its input file as an item of ours,
// our batch as its Batch object, and an ended item as a line of its output or error file. The
// routes (apps/api/src/adapters/openai/batches.ts) store and read; the batch itself is ours.
import type { BatchCounts, BatchResultLine, ParsedBatchLine } from "../batches.js";
import { inputFromOpenAI, OpenAIParamError, openAIUsage, type OpenAIAsk } from "./openai.js";

/** The endpoints a batch may name, and what their runs make. */
export const OPENAI_BATCH_ENDPOINTS = {
  "/v1/images/generations": "image",
  "/v1/images/edits": "image",
  "/v1/videos": "video",
} as const;
export type OpenAIBatchEndpoint = keyof typeof OPENAI_BATCH_ENDPOINTS;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const refused = (
  customId: string | null,
  message: string,
  param: string | null,
  code = "invalid_request",
): ParsedBatchLine => ({
  ok: false,
  customId,
  error: { code, message, param },
});

/** The model a line of the file asks for, if it says (the batch's is the first line's). */
export function openAIBatchLineModel(text: string): string | null {
  try {
    const value = JSON.parse(text) as { body?: { model?: unknown } };
    return typeof value?.body?.model === "string" ? value.body.model : null;
  } catch {
    return null;
  }
}

/**
 * A line of OpenAI's batch input (`{custom_id, method: "POST", url, body}`) as an item of ours:
 * the url must be the batch's endpoint, the body's model the batch's, and its parameters become
 * the model's input as the endpoint's own route makes them (inputFromOpenAI); a refusal names
 * the body's parameter (`body.size`).
 */
export function openAIBatchLine(
  text: string,
  endpoint: OpenAIBatchEndpoint,
  model: { id: string; inputSchema: unknown },
): ParsedBatchLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return refused(null, `The line is not JSON: ${(error as Error).message}`, null, "invalid_json");
  }
  if (!isObject(value)) return refused(null, "A line is a JSON object.", null);
  const customId = typeof value.custom_id === "string" ? value.custom_id.slice(0, 200) : null;
  if (!customId) return refused(null, "custom_id is required, a string.", "custom_id");
  if (value.method !== "POST") return refused(customId, "method must be POST.", "method");
  if (value.url !== endpoint)
    return refused(customId, `url must be the batch's endpoint, ${endpoint}.`, "url");
  const body = value.body;
  if (!isObject(body)) return refused(customId, "body is an object.", "body");
  if (body.model !== model.id)
    return refused(
      customId,
      `Every line of a batch asks for one model: this batch's is ${model.id}.`,
      "body.model",
    );
  const ask: OpenAIAsk = {
    ...(typeof body.prompt === "string" && { prompt: body.prompt }),
    ...(body.n !== undefined && { n: Number(body.n) }),
    ...(typeof body.size === "string" && { size: body.size }),
    ...(body.seconds !== undefined && { seconds: String(body.seconds) }),
    ...(typeof body.image === "string" && { image: body.image }),
    ...(typeof body.input_reference === "string" && {
      image: body.input_reference,
      imageParam: "input_reference",
    }),
    ...(body.loras !== undefined && { loras: body.loras }),
  };
  try {
    return { ok: true, customId, input: inputFromOpenAI(model.inputSchema, ask).input };
  } catch (error) {
    if (error instanceof OpenAIParamError) return refused(customId, error.message, `body.${error.param}`);
    throw error;
  }
}

/** Our paths in a line's refusal (input.prompt) as the body's parameters OpenAI's clients know. */
export const openAIBatchParam = (path: string) =>
  `body.${path
    .replace(/^input\./, "")
    .replace(/^num_images$/, "n")
    .replace(/^(image|video)_size$/, "size")}`;

const STATUS: Record<string, string> = { canceling: "cancelling", canceled: "cancelled" };
const unix = (d: Date | null | undefined) => (d ? Math.floor(d.getTime() / 1_000) : null);

/** The ids of a batch's output and error files (read from the batch, never stored). */
export const batchOutputFileId = (batchId: string, which: "output" | "errors") => `${batchId}_${which}`;
/** A batch's file id read back: its batch and which file, or null for any other id. */
export function batchOfOutputFileId(id: string): { batchId: string; which: "output" | "errors" } | null {
  const m = /^(batch_[0-9A-Za-z]+)_(output|errors)$/.exec(id);
  return m ? { batchId: m[1]!, which: m[2] as "output" | "errors" } : null;
}

export interface OpenAIBatchSource {
  id: string;
  status: string;
  endpoint: string | null;
  inputFileId: string | null;
  metadata: unknown;
  createdAt: Date;
  expiresAt: Date;
  inProgressAt: Date | null;
  finalizingAt: Date | null;
  cancelingAt: Date | null;
  endedAt: Date | null;
}

/** Our batch as OpenAI's Batch object. */
export function presentOpenAIBatch(b: OpenAIBatchSource, counts: BatchCounts) {
  const ended =
    b.status === "completed" || b.status === "expired" || b.status === "canceled" || b.status === "failed";
  const at = (status: string) => (b.status === status ? unix(b.endedAt) : null);
  return {
    id: b.id,
    object: "batch" as const,
    endpoint: b.endpoint ?? "",
    errors: null,
    input_file_id: b.inputFileId ?? "",
    completion_window: "24h",
    status: STATUS[b.status] ?? b.status,
    output_file_id: ended ? batchOutputFileId(b.id, "output") : null,
    error_file_id: ended && counts.failed > 0 ? batchOutputFileId(b.id, "errors") : null,
    created_at: unix(b.createdAt)!,
    in_progress_at: unix(b.inProgressAt),
    expires_at: unix(b.expiresAt),
    finalizing_at: unix(b.finalizingAt),
    completed_at: at("completed"),
    failed_at: at("failed"),
    expired_at: at("expired"),
    cancelling_at: unix(b.cancelingAt),
    cancelled_at: at("canceled"),
    request_counts: { total: counts.total, completed: counts.completed, failed: counts.failed },
    metadata: (b.metadata as Record<string, string> | null) ?? null,
  };
}

/**
 * An ended item as a line of OpenAI's output file (completed: the endpoint's answer, as its route
 * gives it) or error file (the rest: the error, and the answer's status when a run was made).
 */
export function openAIBatchResultLine(
  line: BatchResultLine,
  endpoint: OpenAIBatchEndpoint,
  /** When the batch was made (unix s): the images answer's `created`. */
  created: number,
  video: (runId: string) => unknown,
) {
  const id = `batch_req_${line.run_id ?? `line${line.line}`}`;
  if (line.status === "completed") {
    const body =
      OPENAI_BATCH_ENDPOINTS[endpoint] === "video"
        ? video(line.run_id!)
        : {
            created,
            data: ((line.output?.images as string[] | undefined) ?? []).map((url) => ({ url })),
            output_format: "png",
            usage: openAIUsage(line.tokens_charged),
          };
    return {
      id,
      custom_id: line.custom_id,
      response: { status_code: 200, request_id: line.run_id, body },
      error: null,
    };
  }
  const code = line.error?.code.toLowerCase() ?? line.status;
  const message = line.error?.message ?? `The request ${line.status}.`;
  return {
    id,
    custom_id: line.custom_id,
    response: line.run_id
      ? {
          status_code: 500,
          request_id: line.run_id,
          body: { error: { message, type: "server_error", code } },
        }
      : null,
    error: { code, message },
  };
}
