// What API clients are shown, as schemas: the presenters' return types are inferred from them, and
// the OpenAPI document (apps/api) publishes them, so a presenter cannot drift from the contract.
import { z } from "zod";
import { MODEL_CATEGORIES } from "./catalogue.js";
import { DEADLINE_CANCEL_CODE } from "./runs.js";
import { RUN_APIS, RUN_ERROR_CODES, RUN_STATUSES } from "./runs.js";
import { EVENT_TYPES } from "./webhooks/events.js";
import { ATTEMPT_ERROR_CLASSES } from "./webhooks/delivery.js";

export const timestampView = z.string().meta({ format: "date-time", example: "2026-11-21T06:49:03.120Z" });
export const runIdView = z.string().meta({ example: "run_4ReEbWIXuDXbjwlguHgMmo" });
const tokens = z.number().int();

export const ModelView = z
  .object({
    id: z.string().meta({ example: "acme/pixel/fast" }),
    name: z.string(),
    description: z.string(),
    category: z.enum(MODEL_CATEGORIES),
    outputs_image: z.boolean(),
    outputs_video: z.boolean(),
    outputs_audio: z.boolean(),
    estimated_tokens: z.number().meta({ example: 2 }),
    status: z.string().meta({ example: "active" }),
    highlighted: z.boolean(),
  })
  .meta({ id: "Model" });

export const ModelDetailView = ModelView.extend({
  queue_length: z
    .number()
    .nullable()
    .meta({ description: "Runs of this model waiting now (null while the queue cannot be read)" }),
  capacity: z.number().nullable().meta({
    description:
      "Runs this model can execute at once now: its healthy model servers x their concurrency, or the workers' render threads for built-in generators; null for a model of unlimited capacity (acme/echo), or while the queue cannot be read",
  }),
  in_flight: z.number().nullable().meta({
    description: "Runs holding one of those places now (null when capacity is)",
  }),
  run_time_p50_ms: z
    .number()
    .nullable()
    .meta({ description: "Median execution time of the model's last 100 completed runs; null before any" }),
  input_schema: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema of the run input" }),
  pricing: z.object({
    unit: z.string(),
    tokens_per_unit: z.number(),
    units_from: z.string().nullable(),
    description: z.string(),
  }),
}).meta({ id: "ModelDetail" });

const runError = z.object({ message: z.string(), code: z.enum(RUN_ERROR_CODES) });
/** Canceled by the service: the Cancel-After deadline. */
const cancelError = z.object({ message: z.string(), code: z.literal(DEADLINE_CANCEL_CODE) });
export const outputView = z
  .record(z.string(), z.unknown())
  .meta({ example: { images: ["https://runs.example.com/files/out_70roCqjUmmTprm0UySY0KD/0.png"] } });

export const CreatedRunView = z.strictObject({
  run_id: runIdView,
  status: z.enum(["queued", "COMPLETED", "FAILED", "CANCELED"]).meta({
    description: "queued; with Prefer: wait, the terminal status when the run ended within the wait",
  }),
  model_id: z.string(),
  model_name: z.string(),
  estimated_tokens: z.number(),
  is_test_request: z.boolean(),
  created_at: timestampView,
  // With Prefer: wait, the terminal fields of the run's status read.
  started_at: timestampView.optional(),
  output: outputView.optional(),
  tokens_charged: z.number().optional(),
  completed_at: timestampView.optional(),
  duration_ms: z.number().optional(),
  canceled_at: timestampView.optional(),
  error: z.union([runError, cancelError]).optional(),
});

const ActiveRunView = z.strictObject({
  run_id: runIdView,
  status: z.enum(["QUEUED", "EXECUTING"]),
  model_id: z.string(),
  created_at: timestampView,
  started_at: timestampView.optional(),
  queue_position: z
    .number()
    .optional()
    .meta({ description: "QUEUED: 1 + the queued runs of the same model created before it" }),
  estimated_start_at: timestampView.nullable().optional().meta({
    description: "QUEUED: when it should start; null while no worker is alive or no run finished lately",
  }),
});
const CompletedRunView = z.strictObject({
  run_id: runIdView,
  status: z.literal("COMPLETED"),
  model_id: z.string(),
  output: outputView,
  tokens_charged: z.number(),
  created_at: timestampView,
  completed_at: timestampView,
  duration_ms: z.number(),
});
const FailedRunView = z.strictObject({
  run_id: runIdView,
  status: z.literal("FAILED"),
  error: runError,
});
const CanceledRunView = z.strictObject({
  run_id: runIdView,
  status: z.literal("CANCELED"),
  model_id: z.string(),
  created_at: timestampView,
  started_at: timestampView.optional(),
  canceled_at: timestampView,
  tokens_charged: z.number(),
  error: cancelError.optional().meta({ description: "Set when the service canceled it (Cancel-After)" }),
});
export const RunView = z
  .union([ActiveRunView, CompletedRunView, FailedRunView, CanceledRunView])
  .meta({ id: "Run", description: "Fields by status, as in the interface specification" });

export const CancelResultView = z.object({
  run_id: runIdView,
  status: z.literal("CANCELED"),
  canceled_at: timestampView,
});

export const RunDetailView = z.object({
  run_id: runIdView,
  status: z.enum(RUN_STATUSES),
  model_id: z.string(),
  mode: z.enum(["live", "test"]),
  api: z.enum(RUN_APIS).meta({ description: "The API it was made through: ours, Replicate's or OpenAI's" }),
  input: z.record(z.string(), z.unknown()),
  output: outputView.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  estimated_tokens: tokens,
  tokens_charged: tokens.nullable(),
  attempts: tokens,
  created_at: timestampView,
  started_at: timestampView.nullable(),
  completed_at: timestampView.nullable(),
  canceled_at: timestampView.nullable(),
});

export const EndpointView = z
  .object({
    id: z.string().meta({ example: "wh_2kdpCM5tfN6vjSuI1aG2v2" }),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    status: z.enum(["active", "disabled"]),
    consecutive_failures: z.number(),
    created_at: timestampView,
    disabled_at: timestampView.nullable(),
  })
  .meta({ id: "WebhookEndpoint" });

export const DeliveryView = z
  .object({
    id: z.string(),
    event: z.string(),
    run_id: z.string().nullable(),
    status: z.enum(["pending", "succeeded", "failed"]),
    created_at: timestampView,
    completed_at: timestampView.nullable(),
    attempts: z.array(
      z.object({
        number: z.number(),
        started_at: timestampView,
        duration_ms: z.number(),
        status_code: z.number().nullable(),
        error_class: z.enum(ATTEMPT_ERROR_CLASSES).nullable(),
        success: z.boolean(),
      }),
    ),
  })
  .meta({ id: "Delivery" });

export type ModelView = z.infer<typeof ModelView>;
export type ModelDetailView = z.infer<typeof ModelDetailView>;
export type CreatedRunView = z.infer<typeof CreatedRunView>;
export type RunView = z.infer<typeof RunView>;
export type CancelResultView = z.infer<typeof CancelResultView>;
export type RunDetailView = z.infer<typeof RunDetailView>;
export type EndpointView = z.infer<typeof EndpointView>;
export type DeliveryView = z.infer<typeof DeliveryView>;
