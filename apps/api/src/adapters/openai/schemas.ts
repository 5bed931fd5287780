// OpenAI's shapes as the adapter answers them (documented in the OpenAPI document under
// /openai/v1; each route's handler must return its declared shape).
import { z } from "zod";

export const OpenAIErrorBody = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: z.string().nullable(),
    }),
  })
  .meta({ id: "OpenAIError" });

export const OpenAIModel = z
  .object({ id: z.string(), object: z.literal("model"), created: z.number(), owned_by: z.string() })
  .meta({ id: "OpenAIModel" });
export const OpenAIModelList = z.object({ object: z.literal("list"), data: z.array(OpenAIModel) });

const usage = z.object({
  input_tokens: z.number(),
  output_tokens: z.number().meta({ description: "Ours: the tokens the run was charged" }),
  total_tokens: z.number(),
  input_tokens_details: z.object({ image_tokens: z.number(), text_tokens: z.number() }),
});

export const ImagesResponse = z
  .object({
    created: z.number(),
    data: z.array(z.object({ url: z.string().optional(), b64_json: z.string().optional() })),
    output_format: z.string(),
    size: z.string().optional(),
    usage,
  })
  .meta({ id: "OpenAIImagesResponse" });

export const Video = z
  .object({
    id: z.string(),
    object: z.literal("video"),
    model: z.string(),
    status: z.enum(["queued", "in_progress", "completed", "failed"]),
    progress: z.number(),
    created_at: z.number(),
    completed_at: z.number().nullable(),
    expires_at: z.null(),
    prompt: z.string().nullable(),
    seconds: z.string(),
    size: z.string(),
    remixed_from_video_id: z.null(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .meta({ id: "OpenAIVideo" });
export const VideoList = z.object({
  object: z.literal("list"),
  data: z.array(Video),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});
export const VideoDeleted = z.object({
  id: z.string(),
  object: z.literal("video.deleted"),
  deleted: z.literal(true),
});
