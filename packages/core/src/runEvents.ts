// The events of a run's stream (SSE, and what the API enriches them with), as recorded by the
// process that caused them (packages/queue runEvents), and the cap on what travels with them.
import type { RunStatus } from "./runs.js";

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
