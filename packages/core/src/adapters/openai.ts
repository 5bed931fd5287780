// OpenAI's media API (openai/openai-node: resources/images.ts, videos.ts, audio/speech.ts) as a
// view of our runs: what its requests mean for a model's input, and how runs and models are shown
// to its clients. Pure translation; the routes are apps/api/src/adapters/openai.
import { fileFieldsOf } from "../files.js";
import { IMAGE_SIZES, VIDEO_SIZES } from "../media.js";
import type { ModelRecord } from "../models.js";
import type { RunRecord, RunStatus } from "../runs.js";

/** Where the adapter is served: OpenAI's clients take `${origin}${OPENAI_PREFIX}` as baseURL. */
export const OPENAI_PREFIX = "/openai/v1";

/** What a request asks, by OpenAI's parameter names (the routes read them from JSON or a form). */
export interface OpenAIAsk {
  prompt?: string;
  /** images: how many. */
  n?: number;
  /** "WxH", or "auto" (the model's default). */
  size?: string;
  /** videos: the clip's length. */
  seconds?: string;
  /** speech: the audio's format. */
  responseFormat?: string;
  voice?: string;
  /** An image in (images.edit's image, videos' input_reference): a file of ours, or a URL. */
  image?: string;
  /** The parameter the image came as, which refusals name (images: image; videos: input_reference). */
  imageParam?: "image" | "input_reference";
  mask?: string;
  /** Ours: the run's LoRAs (a field OpenAI's API has not; its clients send it as an extra body field). */
  loras?: unknown;
}

export class OpenAIParamError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

interface Schema {
  properties?: Record<string, { enum?: unknown[]; type?: string }>;
}

const dims = (table: Record<string, [number, number]>, name: string) => {
  const d = table[name];
  return d ? `${d[0]}x${d[1]}` : null;
};

/** The size fields a model may have, and the table giving each preset's pixels. */
const SIZE_FIELDS = [
  ["image_size", IMAGE_SIZES],
  ["video_size", VIDEO_SIZES],
] as const;

/**
 * The model's input for an OpenAI-style request: each parameter goes to the field of ours that
 * means it (prompt, num_images, image_size or video_size by its pixels, duration_seconds, format,
 * voice, the first image file field, mask); one the model has no field for is refused naming the
 * parameter, except voice (taken by models that have one, as a hint elsewhere) and an edit's
 * prompt. Also returns which
 * parameter each field came from, to name OpenAI's parameter in a validation error.
 */
export function inputFromOpenAI(
  schema: unknown,
  ask: OpenAIAsk,
): { input: Record<string, unknown>; paramOf: Record<string, string> } {
  const fields = (schema as Schema)?.properties ?? {};
  const input: Record<string, unknown> = {};
  const paramOf: Record<string, string> = {};
  const set = (field: string, param: string, value: unknown) => {
    input[field] = value;
    paramOf[`input.${field}`] = param;
  };
  if (ask.prompt !== undefined) {
    // An edit's image is its subject: a model that takes no prompt (an upscaler) gets the image
    // alone (OpenAI's clients always send one). Otherwise a prompt must have somewhere to go.
    if (fields.prompt) set("prompt", "prompt", ask.prompt);
    else if (ask.image === undefined) throw new OpenAIParamError("prompt", "This model takes no prompt.");
  }
  if (ask.n !== undefined && (ask.n !== 1 || fields.num_images)) {
    if (!fields.num_images)
      throw new OpenAIParamError("n", "This model makes one output per request: n must be 1.");
    set("num_images", "n", ask.n);
  }
  if (ask.size !== undefined && ask.size !== "auto") {
    const found = SIZE_FIELDS.find(([f]) => fields[f]);
    if (!found) throw new OpenAIParamError("size", "This model has one size: leave size out, or auto.");
    const [field, table] = found;
    const presets = (fields[field]!.enum ?? Object.keys(table)).map(String);
    const preset = presets.find((p) => dims(table, p) === ask.size);
    if (!preset)
      throw new OpenAIParamError(
        "size",
        `size must be one of ${presets
          .map((p) => dims(table, p))
          .filter(Boolean)
          .join(", ")} (or auto).`,
      );
    set(field, "size", preset);
  }
  if (ask.seconds !== undefined) {
    if (!fields.duration_seconds)
      throw new OpenAIParamError("seconds", "This model's length is fixed: leave seconds out.");
    const seconds = Number(ask.seconds);
    if (!Number.isInteger(seconds)) throw new OpenAIParamError("seconds", "seconds must be a whole number.");
    set("duration_seconds", "seconds", seconds);
  }
  if (ask.responseFormat !== undefined) {
    const allowed = (fields.format?.enum ?? []).map(String);
    if (!allowed.includes(ask.responseFormat))
      throw new OpenAIParamError(
        "response_format",
        allowed.length
          ? `response_format must be one of ${allowed.join(", ")} for this model.`
          : "This model makes one audio format: leave response_format out.",
      );
    set("format", "response_format", ask.responseFormat);
  }
  if (ask.voice !== undefined && fields.voice) set("voice", "voice", ask.voice);
  if (ask.image !== undefined) {
    const field = fileFieldsOf(schema).find((f) => f.kinds.includes("image"));
    const param = ask.imageParam ?? "image";
    if (!field) throw new OpenAIParamError(param, "This model takes no image.");
    set(field.name, param, ask.image);
  }
  if (ask.mask !== undefined) {
    if (!fields.mask) throw new OpenAIParamError("mask", "This model takes no mask.");
    set("mask", "mask", ask.mask);
  }
  if (ask.loras !== undefined) {
    if (!fields.loras) throw new OpenAIParamError("loras", "This model takes no LoRAs.");
    set("loras", "loras", ask.loras);
  }
  return { input, paramOf };
}

/** The OpenAI parameter a validation error of ours names (input.prompt -> prompt). */
export const openAIParam = (paramOf: Record<string, string>, path: string) =>
  paramOf[path] ?? paramOf[path.split(".").slice(0, 2).join(".")] ?? path.replace(/^input\./, "");

const unix = (d: Date | null) => (d ? Math.floor(d.getTime() / 1_000) : null);

/** A model as OpenAI's models.list shows one. */
export function presentOpenAIModel(model: Pick<ModelRecord, "id"> & { createdAt?: Date; updatedAt?: Date }) {
  return {
    id: model.id,
    object: "model" as const,
    created: unix(model.createdAt ?? model.updatedAt ?? null) ?? 0,
    owned_by: model.id.split("/")[0]!,
  };
}

/**
 * usage: OpenAI counts its tokens; ours are what the run was charged, reported as output tokens
 * (test keys: 0), so that clients that add usage up add up what they pay.
 */
export function openAIUsage(tokensCharged: number | null) {
  const tokens = tokensCharged ?? 0;
  return {
    input_tokens: 0,
    output_tokens: tokens,
    total_tokens: tokens,
    input_tokens_details: { image_tokens: 0, text_tokens: 0 },
  };
}

const VIDEO_STATUS: Record<RunStatus, "queued" | "in_progress" | "completed" | "failed"> = {
  QUEUED: "queued",
  EXECUTING: "in_progress",
  COMPLETED: "completed",
  FAILED: "failed",
  // OpenAI's videos have no canceled status: a canceled one failed, with code canceled.
  CANCELED: "failed",
};

export interface VideoRun extends RunRecord {
  input: unknown;
  unitsCompleted: number;
  unitsRequested: number;
}

/** A run as OpenAI's video job: its status, progress (percent of seconds made), size and length. */
export function presentVideo(run: VideoRun) {
  const input = (run.input ?? {}) as Record<string, unknown>;
  const size = typeof input.video_size === "string" ? dims(VIDEO_SIZES, input.video_size) : null;
  const progress =
    run.status === "COMPLETED"
      ? 100
      : run.unitsRequested > 0
        ? Math.min(99, Math.floor((100 * run.unitsCompleted) / run.unitsRequested))
        : 0;
  return {
    id: run.id,
    object: "video" as const,
    model: run.modelId,
    status: VIDEO_STATUS[run.status],
    progress,
    created_at: unix(run.createdAt)!,
    completed_at: unix(run.completedAt ?? run.canceledAt),
    expires_at: null,
    prompt: typeof input.prompt === "string" ? input.prompt : null,
    seconds: input.duration_seconds === undefined ? "" : String(input.duration_seconds),
    size: size ?? "",
    remixed_from_video_id: null,
    error:
      run.status === "FAILED"
        ? { code: (run.errorCode ?? "internal_error").toLowerCase(), message: run.errorMessage ?? "" }
        : run.status === "CANCELED"
          ? { code: "canceled", message: run.errorMessage ?? "The video was canceled." }
          : null,
  };
}
export type OpenAIVideo = ReturnType<typeof presentVideo>;
