// Replicate's predictions API (replicate/replicate-javascript, docs at replicate.com/docs/reference/http)
// as a view of our runs: how a run, a model and a file are shown to Replicate's clients, and what
// their requests mean in our terms. Pure translation; the routes are apps/api/src/adapters/replicate.
import type { ModelRecord } from "../models.js";
import type { RunRecord, RunStatus } from "../runs.js";
import type { WebhookFilterValue } from "../webhooks/filter.js";

/** Where the adapter is served: Replicate's clients take `${origin}${REPLICATE_PREFIX}` as baseUrl. */
export const REPLICATE_PREFIX = "/replicate/v1";

export const PREDICTION_STATUSES = ["starting", "processing", "succeeded", "failed", "canceled"] as const;
export type PredictionStatus = (typeof PREDICTION_STATUSES)[number];

const STATUS: Record<RunStatus, PredictionStatus> = {
  QUEUED: "starting",
  EXECUTING: "processing",
  COMPLETED: "succeeded",
  FAILED: "failed",
  CANCELED: "canceled",
};

export const predictionStatus = (status: RunStatus): PredictionStatus => STATUS[status];

/**
 * Replicate's webhook events: start, output, logs, completed. What each makes of ours: start is
 * run.started, completed is every end (completed, failed, canceled); output and logs are taken
 * (clients send them by default) and met by the completed delivery, which carries the whole
 * output and logs: runs do not send a webhook per partial output.
 */
export const REPLICATE_WEBHOOK_EVENTS = ["start", "output", "logs", "completed"] as const;
export type ReplicateWebhookEvent = (typeof REPLICATE_WEBHOOK_EVENTS)[number];

export function webhookFilterOf(events: readonly ReplicateWebhookEvent[] | undefined): WebhookFilterValue[] {
  // Replicate's default: new outputs and the end, which here is the end.
  const asked = events ?? ["output", "completed"];
  const ours = new Set<WebhookFilterValue>();
  if (asked.includes("start")) ours.add("started");
  if (asked.some((e) => e !== "start"))
    for (const e of ["completed", "failed", "canceled"] as const) ours.add(e);
  return [...ours];
}

/**
 * A run's output as Replicate's models give theirs: an output of one field holding a URL or a list
 * of them (`{ images: [...] }`, `{ video: "…" }`) is that URL or list, which Replicate's clients
 * turn into FileOutput objects; any other output is shown as it is.
 */
export function predictionOutput(output: unknown): unknown {
  if (output === null || typeof output !== "object" || Array.isArray(output)) return output ?? null;
  const entries = Object.entries(output);
  if (entries.length !== 1) return output;
  const value = entries[0]![1];
  const isUrl = (v: unknown) => typeof v === "string" && /^(https?|data):/.test(v);
  if (isUrl(value) || (Array.isArray(value) && value.length > 0 && value.every(isUrl))) return value;
  return output;
}

export interface PredictionRun extends RunRecord {
  input: unknown;
}

const seconds = (from: Date | null, to: Date | null) =>
  from && to ? Math.max(0, (to.getTime() - from.getTime()) / 1_000) : undefined;

/** A run as a Replicate prediction. `base`: the adapter's URL (origin + REPLICATE_PREFIX). */
export function presentPrediction(run: PredictionRun, base: string) {
  const status = predictionStatus(run.status);
  const ended = run.completedAt ?? run.canceledAt;
  const predictTime = seconds(run.startedAt, ended);
  const error =
    run.status === "FAILED"
      ? `${run.errorCode ?? "INTERNAL_ERROR"}: ${run.errorMessage ?? ""}`
      : run.status === "CANCELED" && run.errorMessage
        ? run.errorMessage
        : null;
  return {
    id: run.id,
    model: run.modelId,
    // Our models have no versions: a model's one version is named by its id, which POST
    // /predictions takes as `version` (three-segment ids included).
    version: run.modelId,
    input: (run.input ?? {}) as Record<string, unknown>,
    output: run.status === "COMPLETED" ? predictionOutput(run.output) : null,
    error,
    logs: "",
    status,
    source: "api" as const,
    data_removed: false,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    completed_at: ended?.toISOString() ?? null,
    urls: {
      get: `${base}/predictions/${run.id}`,
      cancel: `${base}/predictions/${run.id}/cancel`,
      stream: `${base}/predictions/${run.id}/stream`,
      web: `${base}/predictions/${run.id}`,
    },
    metrics: {
      ...(predictTime !== undefined && { predict_time: predictTime }),
      ...(ended && { total_time: seconds(run.createdAt, ended) }),
      // Ours: what the run cost (null until it has ended; test runs cost nothing).
      tokens_charged: run.tokensCharged,
      estimated_tokens: run.estimatedTokens,
    },
  };
}
export type Prediction = ReturnType<typeof presentPrediction>;

/** Replicate's model id is owner/name; ours may have more segments (acme/pixel/fast): name is the rest. */
export function splitModelId(id: string): { owner: string; name: string } {
  const slash = id.indexOf("/");
  return slash < 0 ? { owner: id, name: "" } : { owner: id.slice(0, slash), name: id.slice(slash + 1) };
}

/**
 * Our input schema as a Cog model's OpenAPI `Input` (what Replicate shows under a version's
 * openapi_schema): the same JSON Schema with a title and each field's `x-order` (the order forms
 * show fields in): required fields first. (A stored schema's own key order is not kept: Postgres'
 * jsonb orders keys by length.)
 */
export function replicateInputSchema(schema: unknown): Record<string, unknown> {
  const s = (schema ?? {}) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const required = new Set(s.required ?? []);
  const fields = Object.entries(s.properties ?? {});
  const ordered = [...fields.filter(([n]) => required.has(n)), ...fields.filter(([n]) => !required.has(n))];
  const properties = Object.fromEntries(
    ordered.map(([name, field], order) => [
      name,
      { title: name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()), ...field, "x-order": order },
    ]),
  );
  return { ...(schema as object), title: "Input", type: "object", properties };
}

/** A model as Replicate shows one, with its one version carrying the input schema. */
export function presentReplicateModel(model: ModelRecord & { updatedAt: Date }, base: string) {
  const { owner, name } = splitModelId(model.id);
  return {
    url: `${base}/models/${model.id}`,
    owner,
    name,
    description: model.description,
    visibility: "public" as const,
    github_url: null,
    paper_url: null,
    license_url: null,
    cover_image_url: null,
    default_example: null,
    run_count: 0,
    latest_version: {
      id: model.id,
      created_at: model.updatedAt.toISOString(),
      cog_version: null,
      openapi_schema: {
        openapi: "3.0.2",
        info: { title: model.name, version: model.id },
        components: {
          schemas: {
            Input: replicateInputSchema(model.inputSchema),
            Output: { title: "Output" },
          },
        },
      },
    },
  };
}

/** A file as Replicate's files API shows one; its `urls.get` is what clients put in an input. */
export function presentReplicateFile(
  file: { id: string; contentType: string; size: number; sha256: string; createdAt: Date; expiresAt: Date },
  base: string,
) {
  return {
    id: file.id,
    name: file.id,
    content_type: file.contentType,
    size: file.size,
    etag: file.sha256,
    checksums: { sha256: file.sha256 },
    metadata: {},
    created_at: file.createdAt.toISOString(),
    expires_at: file.expiresAt.toISOString(),
    urls: { get: `${base}/files/${file.id}` },
  };
}

/**
 * POST /predictions's `version`: a model id of ours (owner/name, or more segments), or
 * owner/name:version as Replicate writes a pinned version (the version part names nothing here, as
 * our models have one version: the model id is taken).
 */
export function modelOfVersion(version: string): string {
  const colon = version.indexOf(":");
  return colon < 0 ? version : version.slice(0, colon);
}

/**
 * Replicate's LoRA convention (flux-dev-lora and friends: `lora_weights` with `lora_scale`, then
 * `extra_lora` with `extra_lora_scale`), as our `loras` field, for a model that takes LoRAs: a
 * Replicate client's input works as it is. An input that gives `loras` itself is left alone.
 */
export function lorasFromReplicate(input: Record<string, unknown>): Record<string, unknown> {
  if (input.loras !== undefined || (input.lora_weights === undefined && input.extra_lora === undefined))
    return input;
  const {
    lora_weights: first,
    lora_scale: firstScale,
    extra_lora: extra,
    extra_lora_scale: extraScale,
    ...rest
  } = input;
  const slot = (weights: unknown, scale: unknown) =>
    weights === undefined || weights === null || weights === ""
      ? []
      : [{ weights, ...(scale !== undefined && scale !== null && { scale }) }];
  return { ...rest, loras: [...slot(first, firstScale), ...slot(extra, extraScale)] };
}
