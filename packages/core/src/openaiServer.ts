// OpenAI-style media servers (vLLM-Omni, SGLang's diffusion server, LocalAI, LiteLLM) as a kind of
// model server: their settings in the catalogue, and what a run's input becomes in their API
// (the inverse of the OpenAI adapter's translation: the same field meanings, the other way).
import { z } from "zod";
import { modelServerUrl, serverPool } from "./modelServers.js";
import type { RunnerTraits } from "./runnerKinds.js";
import { IMAGE_SIZES, imageSizeField, VIDEO_SIZES } from "./media.js";

export const OPENAI_SERVER_APIS = ["images", "videos", "speech"] as const;
export type OpenAIServerApi = (typeof OPENAI_SERVER_APIS)[number];

export const openAIServerRunnerSchema = z.strictObject({
  kind: z.literal("openai"),
  /** Base URLs of the servers (without /v1), each serving the model. */
  servers: z.array(modelServerUrl).min(1),
  /** The model's name on those servers (what their /v1/models lists). */
  model: z.string().min(1).max(300),
  /** Which of OpenAI's media APIs it is served with: images, videos or speech. */
  api: z.enum(OPENAI_SERVER_APIS),
  /** The servers' API key, sealed with SECRETS_KEY as webhook secrets are (never shown again). */
  api_key_enc: z.string().min(1).optional(),
  /** Requests one worker process sends to one server at a time. */
  concurrency: z.int().min(1).default(1),
  health_interval_ms: z.int().min(50).default(2_000),
  /** How long a request may take: an image or speech is answered when made, so this is long. */
  request_timeout_ms: z.int().min(100).default(600_000),
  /** How often a video job is polled for its status and progress. */
  poll_interval_ms: z.int().min(50).default(1_000),
});

export type OpenAIServerSettings = z.infer<typeof openAIServerRunnerSchema>;

/** What each API makes, as our outputs count it. */
export const OPENAI_SERVER_OUTPUT = { images: "image", videos: "video", speech: "audio" } as const;

const pixels = (table: Record<string, [number, number]>, preset: unknown) => {
  const d = typeof preset === "string" ? table[preset] : undefined;
  return d ? `${d[0]}x${d[1]}` : undefined;
};

/**
 * A run's input as the server's request body: prompt, num_images as n, image_size or video_size as
 * "WxH", duration_seconds as seconds, format as response_format (speech: the prompt is `input`);
 * any other field of the model's is passed as it is (servers take extra parameters such as seed
 * or num_inference_steps). File fields are the caller's to send (`files`: their names).
 */
export function openAIServerBody(
  s: Pick<OpenAIServerSettings, "api" | "model">,
  input: Record<string, unknown>,
  files: readonly string[] = [],
): Record<string, unknown> {
  const { prompt, num_images, image_size, video_size, duration_seconds, format, ...rest } = input;
  for (const f of files) delete rest[f];
  const body: Record<string, unknown> = { model: s.model, ...rest };
  const size = pixels(IMAGE_SIZES, image_size) ?? pixels(VIDEO_SIZES, video_size);
  if (size) body.size = size;
  switch (s.api) {
    case "images":
      return { ...body, prompt, n: num_images ?? 1, response_format: "b64_json" };
    case "videos":
      return {
        ...body,
        prompt,
        ...(duration_seconds !== undefined && { seconds: String(duration_seconds) }),
      };
    case "speech":
      return { ...body, input: prompt, voice: rest.voice ?? "alloy", response_format: format ?? "mp3" };
  }
}

export const openAIVideoJobSchema = z.looseObject({
  id: z.string(),
  status: z.enum(["queued", "in_progress", "completed", "failed"]),
  progress: z.number().nullish(),
  error: z.looseObject({ message: z.string().optional(), code: z.string().nullish() }).nullish(),
});
export type OpenAIVideoJob = z.infer<typeof openAIVideoJobSchema>;

export const openAIImagesSchema = z.looseObject({
  data: z.array(z.looseObject({ b64_json: z.string().nullish(), url: z.string().nullish() })),
});

const SEED = {
  type: "integer",
  minimum: 0,
  maximum: 4294967295,
  description: "Random seed, passed to the server (which may ignore it).",
};

/**
 * The public input of a model imported from an OpenAI-style server, by its API: what the
 * interface spec's models of its category take (images: prompt, image_size, num_images), each
 * field meaning what openAIServerBody sends.
 */
export function openAIServerInputSchema(api: OpenAIServerApi): Record<string, unknown> & {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
} {
  const prompt = {
    type: "string",
    minLength: 1,
    maxLength: 4000,
    description: "Text description of what to make.",
  };
  const properties: Record<string, Record<string, unknown>> = api === "images"
    ? {
        prompt,
        image_size: imageSizeField(),
        num_images: {
          type: "integer",
          minimum: 1,
          maximum: 4,
          default: 1,
          description: "Number of images to generate.",
        },
        seed: SEED,
      }
    : api === "videos"
      ? {
          prompt,
          duration_seconds: {
            type: "integer",
            minimum: 1,
            maximum: 20,
            default: 4,
            description: "Length of the clip in seconds.",
          },
          video_size: {
            type: "string",
            enum: ["landscape_720p", "portrait_720p"],
            default: "landscape_720p",
            description: "Frame size preset: landscape_720p 1280x720, portrait_720p 720x1280.",
          },
          first_frame: {
            type: "string",
            format: "uri",
            "x-media": "image",
            "x-content-types": ["image/png", "image/jpeg"],
            description:
              "Image to video: the image the clip starts from. A file id (POST /files), an https URL or a data URL.",
          },
          seed: SEED,
        }
      : {
          prompt: { ...prompt, maxLength: 4096, description: "The text to speak." },
          voice: {
            type: "string",
            minLength: 1,
            maxLength: 100,
            default: "alloy",
            description: "The server's voice.",
          },
          format: {
            type: "string",
            enum: ["mp3", "wav", "flac", "opus", "aac"],
            default: "mp3",
            description: "Audio file format.",
          },
        };
  return { type: "object", properties, required: ["prompt"], additionalProperties: false };
}

/** How an imported model of each API is priced: per image, per second of video, per speech. */
export const OPENAI_SERVER_PRICING = {
  images: { unit: "image", units_from: "num_images" },
  videos: { unit: "second", units_from: "duration_seconds" },
  speech: { unit: "run" },
} as const;

/**
 * OpenAI-style media servers, each with `concurrency` slots. An image edit's file goes in a
 * multipart form, which the worker builds from the file's bytes; a video's reference image is
 * given to the server as a URL. The answer comes back on the request that sent the work.
 */
export const openAIServerTraits = (s: OpenAIServerSettings): RunnerTraits => ({
  pool: serverPool(s, s.concurrency),
  costsCompute: true,
  instant: false,
  output: OPENAI_SERVER_OUTPUT[s.api],
  files: s.api === "videos" ? "urls" : "ids",
  weights: "urls",
  // None: vLLM-Omni's per-request `lora` names a PEFT adapter folder readable on the server (not
  // a file by URL), and the OpenAI APIs have no LoRA field (docs/using-the-api.md, Personal weights).
  loraSlots: 0,
  executesWhereLeased: true,
});
