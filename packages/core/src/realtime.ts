// Real-time rules: the events a run's stream carries, and what a run's own webhook receives.
import type { RunStatus } from "./runs.js";

/** Why a run was canceled by the service rather than by its client. */
export const DEADLINE_CANCEL_CODE = "CANCEL_AFTER";

/** What `webhook_events_filter` accepts on creation, and the event each value stands for. */
export const WEBHOOK_FILTER_VALUES = ["started", "completed", "failed", "canceled"] as const;
export type WebhookFilterValue = (typeof WEBHOOK_FILTER_VALUES)[number];
export const webhookFilterEvents = (values: readonly WebhookFilterValue[]) =>
  [...new Set(values)].map((v) => `run.${v}`);

/** An event of a run's stream, as recorded: small, enriched by the API when it is sent. */
export type RunEvent =
  | {
      type: "status";
      status: RunStatus;
      at: string;
      /** An ended run's view (presentRun), when small enough to travel with the event. */
      view?: Record<string, unknown>;
    }
  | { type: "progress"; at: string; data: RunProgress };

/** An event as the process that caused it records it (packages/queue runEvents). */
export interface RecordedEvent {
  runId: string;
  /** Needed with status events (the model's queue and run times). */
  modelId?: string;
  event: RunEvent;
  /** QUEUED: the run's creation time in ms, its place in the queue. */
  queuedAt?: number;
  /** A completed run's execution time, for the model's recent run times. */
  runMs?: number;
}

/** What a runner reports while it works. */
export interface RunProgress {
  /** Units done and asked for (images, seconds), when the runner counts them. */
  completed?: number;
  total?: number;
  /** The model's log so far (its last 8 KiB), where the model server sends it. */
  logs?: string;
  /** The output so far, when the model produces it piece by piece. */
  output?: unknown;
}

/** Largest ended-run view carried by its event; a larger one (a big output) is read from the database. */
export const EVENT_VIEW_MAX_BYTES = 16_384;

/** A status event may arrive late (two processes publish); a stream never goes backwards. */
export const statusRank = (status: RunStatus): number =>
  status === "QUEUED" ? 0 : status === "EXECUTING" ? 1 : 2;
