// Real-time rules: how long a request may wait (Prefer: wait), when a run is canceled by its
// deadline (Cancel-After), the events a run's stream carries, and when a queued run may start.
import type { RunStatus } from "./runs.js";

export const WAIT_MAX_SECONDS = 60;

/**
 * The seconds of `Prefer: wait` or `Prefer: wait=N` (RFC 7240), or null when the header asks for
 * no wait. N outside 1..60 is an error the caller reports; other preferences are ignored.
 */
export function parsePreferWait(header: string | undefined): number | null | "invalid" {
  if (!header) return null;
  for (const preference of header.split(",")) {
    const [name, value] = preference
      .split(";")[0]!
      .split("=", 2)
      .map((s) => s.trim());
    if (name?.toLowerCase() !== "wait") continue;
    if (value === undefined || value === "") return WAIT_MAX_SECONDS;
    const seconds = /^"?(\d{1,4})"?$/.exec(value)?.[1];
    if (!seconds) return "invalid";
    const n = Number(seconds);
    return n >= 1 && n <= WAIT_MAX_SECONDS ? n : "invalid";
  }
  return null;
}

export const CANCEL_AFTER_MIN_MS = 1_000;
export const CANCEL_AFTER_MAX_MS = 24 * 3_600_000;
const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;

/**
 * Milliseconds of a `Cancel-After` duration: Go-style `1h30m`, `5m`, `30s`, `1500ms`, or a bare
 * number of seconds; null when malformed or outside 1 s..24 h.
 */
export function parseCancelAfter(value: string): number | null {
  const text = value.trim().toLowerCase();
  let ms: number;
  if (/^\d{1,6}$/.test(text)) ms = Number(text) * 1_000;
  else {
    if (!/^(\d{1,6}(h|ms|m|s))+$/.test(text)) return null;
    ms = 0;
    for (const [, n, unit] of text.matchAll(/(\d+)(h|ms|m|s)/g))
      ms += Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  return ms >= CANCEL_AFTER_MIN_MS && ms <= CANCEL_AFTER_MAX_MS ? ms : null;
}

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

export interface QueueSnapshot {
  /** Run slots of the workers alive now (their heartbeats), and how many are busy. */
  capacity: number;
  executing: number;
  /** Mean execution time of recent runs (all models), null when none finished lately. */
  meanRunMs: number | null;
}

/**
 * When a queued run should start: the workers take runs in creation order, so the runs created
 * before it (of any model, `ahead`) start first. Free slots take runs at once; past them, runs
 * start in waves of `capacity`, one every mean run time, and the running wave is on average half
 * done. Null when no worker is alive or no run finished lately: there is nothing honest to say.
 */
export function estimateStartMs(ahead: number, queue: QueueSnapshot): number | null {
  if (queue.capacity <= 0 || queue.meanRunMs === null) return null;
  const free = Math.max(0, queue.capacity - queue.executing);
  if (ahead < free) return 0;
  return Math.round((Math.floor((ahead - free) / queue.capacity) + 0.5) * queue.meanRunMs);
}

/** The median of recent run times, null when there are none. */
export function median(values: readonly number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}
