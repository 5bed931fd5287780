// Shapes of the Model Run Service API (see its OpenAPI document at /api/v1/openapi.json).
export type ModelCategory = "image" | "video" | "audio";
export type RunStatus = "QUEUED" | "EXECUTING" | "COMPLETED" | "FAILED" | "CANCELED";
export type EventType = "run.started" | "run.completed" | "run.failed" | "run.canceled";
/** What a run's own webhook_url receives (webhook_events_filter). */
export type WebhookFilter = "started" | "completed" | "failed" | "canceled";

export interface Model {
  id: string;
  name: string;
  description: string;
  category: ModelCategory;
  outputs_image: boolean;
  outputs_video: boolean;
  outputs_audio: boolean;
  estimated_tokens: number;
  status: string;
  highlighted: boolean;
}

export interface ModelDetail extends Model {
  /** Runs of this model waiting now; null while the queue cannot be read. */
  queue_length: number | null;
  /** Median execution time of its recent completed runs; null before any. */
  run_time_p50_ms: number | null;
  input_schema: Record<string, unknown>;
  pricing: { unit: string; tokens_per_unit: number; units_from: string | null; description: string };
}

export interface ModelList {
  models: Model[];
  total: number;
  limit: number;
  offset: number;
}

export interface CreatedRun {
  run_id: string;
  /** queued; with a wait, the terminal status when the run ended within it. */
  status: "queued" | "COMPLETED" | "FAILED" | "CANCELED";
  model_id: string;
  model_name: string;
  estimated_tokens: number;
  is_test_request: boolean;
  created_at: string;
  /** With a wait: the terminal fields of the run. */
  started_at?: string;
  completed_at?: string;
  canceled_at?: string;
  duration_ms?: number;
  output?: Run["output"];
  tokens_charged?: number;
  error?: { message: string; code: string };
}

export interface Run {
  run_id: string;
  status: RunStatus;
  model_id?: string;
  created_at?: string;
  started_at?: string;
  completed_at?: string;
  canceled_at?: string;
  duration_ms?: number;
  output?: { images?: string[]; video?: string[]; audio?: string[] } & Record<string, unknown>;
  tokens_charged?: number;
  error?: { message: string; code: string };
  /** QUEUED: 1 + the queued runs of the same model created before it. */
  queue_position?: number;
  /** QUEUED: when it should start; null when the service cannot tell. */
  estimated_start_at?: string | null;
}

/** What a runner reports while executing (progress events). */
export interface RunProgress {
  run_id: string;
  at: string;
  completed?: number;
  total?: number;
  logs?: string;
  output?: unknown;
}

/** An event of a run's stream: a status with the run's view, or progress. */
export type RunEvent =
  { type: "status"; id?: string; run: Run } | { type: "progress"; id?: string; progress: RunProgress };

export interface RunList {
  runs: Run[];
  next_cursor: string | null;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: EventType[];
  status: "active" | "disabled";
  consecutive_failures: number;
  created_at: string;
  disabled_at: string | null;
}

export interface CreatedWebhook {
  id: string;
  url: string;
  events: EventType[];
  signing_secret: string;
}

export interface Delivery {
  id: string;
  event: string;
  run_id: string | null;
  status: "pending" | "succeeded" | "failed";
  created_at: string;
  completed_at: string | null;
  attempts: {
    number: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error_class: string | null;
    success: boolean;
  }[];
}

/** A webhook delivery body (per-run or registered endpoint). */
export interface WebhookEvent {
  event: EventType | "webhook.test";
  webhook_id?: string;
  created_at?: string;
  data: {
    run_id?: string;
    model_id?: string;
    result?: Record<string, unknown>;
    error?: { message: string; code: string };
    canceled_at?: string;
    started_at?: string;
    tokens_charged?: number;
    timestamp?: string;
    message?: string;
  };
}

export interface Account {
  id: string;
  name: string;
  balance: number;
  reserved: number;
  /** balance - reserved */
  available: number;
  /** The mode of the key that asked. */
  mode: "live" | "test";
}

export interface LedgerEntry {
  id: string;
  kind: "GRANT" | "RESERVE" | "CHARGE" | "RELEASE";
  amount: number;
  balance_delta: number;
  reserved_delta: number;
  run_id: string | null;
  note: string;
  created_at: string;
}

export interface Usage {
  days: { date: string; tokens_charged: number; runs_charged: number }[];
  total_tokens_charged: number;
}
