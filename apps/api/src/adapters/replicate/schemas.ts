// Replicate's shapes as the adapter answers them (documented in the OpenAPI document under
// /replicate/v1; each route's handler must return its declared shape).
import { z } from "zod";
import { PREDICTION_STATUSES } from "@svc/core";

const timestamp = z.string().meta({ format: "date-time" });

export const Prediction = z
  .object({
    id: z.string().meta({ example: "run_4ReEbWIXuDXbjwlguHgMmo" }),
    model: z.string().meta({ example: "acme/pixel-hq" }),
    version: z.string().meta({ description: "The model id (our models have one version each)" }),
    input: z.record(z.string(), z.unknown()),
    output: z.unknown().meta({
      description:
        "null until it succeeded; an output of one field holding URLs is that URL or list (as Replicate's models give files)",
    }),
    error: z.string().nullable(),
    logs: z.string(),
    status: z.enum(PREDICTION_STATUSES),
    source: z.literal("api"),
    data_removed: z.boolean(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
    urls: z.object({ get: z.string(), cancel: z.string(), stream: z.string(), web: z.string() }),
    metrics: z.object({
      predict_time: z.number().optional().meta({ description: "Seconds executing" }),
      total_time: z.number().optional(),
      tokens_charged: z.number().nullable().meta({ description: "Ours: tokens charged, once ended" }),
      estimated_tokens: z.number(),
    }),
  })
  .meta({ id: "ReplicatePrediction" });

const page = <T extends z.ZodType>(item: T) =>
  z.object({ previous: z.string().nullable(), next: z.string().nullable(), results: z.array(item) });

export const PredictionPage = page(Prediction);

export const ReplicateModel = z
  .object({
    url: z.string(),
    owner: z.string(),
    name: z.string(),
    description: z.string(),
    visibility: z.literal("public"),
    github_url: z.null(),
    paper_url: z.null(),
    license_url: z.null(),
    cover_image_url: z.null(),
    default_example: z.null(),
    run_count: z.number(),
    latest_version: z.object({
      id: z.string(),
      created_at: timestamp,
      cog_version: z.null(),
      openapi_schema: z.record(z.string(), z.unknown()),
    }),
  })
  .meta({ id: "ReplicateModel" });
export const ModelPage = page(ReplicateModel);

export const ReplicateFile = z
  .object({
    id: z.string(),
    name: z.string(),
    content_type: z.string(),
    size: z.number(),
    etag: z.string(),
    checksums: z.object({ sha256: z.string() }),
    metadata: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    expires_at: timestamp,
    urls: z.object({ get: z.string() }),
  })
  .meta({ id: "ReplicateFile" });
export const FilePage = page(ReplicateFile);

export const WebhookSecret = z.object({
  key: z.string().meta({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwJkU3Fx9w8Lg=" }),
});

/** Replicate's error body (RFC 7807's problem details, as its API answers them). */
export const ReplicateError = z
  .object({
    title: z.string(),
    detail: z.string(),
    status: z.number(),
    invalid_fields: z
      .array(z.object({ type: z.string(), field: z.string(), description: z.string() }))
      .optional(),
  })
  .meta({ id: "ReplicateError" });
