// How webhook endpoints and deliveries are shown to API clients. Never a secret.
import type { DeliveryView, EndpointView } from "../views.js";
import { isOneOf } from "../literals.js";
import { EVENT_TYPES } from "./events.js";
import { ATTEMPT_ERROR_CLASSES } from "./delivery.js";

export interface EndpointRecord {
  id: string;
  url: string;
  events: string[];
  status: "active" | "disabled";
  consecutiveFailures: number;
  createdAt: Date;
  disabledAt: Date | null;
}

/** An endpoint's stored subscriptions, as the event types they name. */
export const knownEvents = (events: string[]) => events.filter((e) => isOneOf(EVENT_TYPES, e));

export function presentEndpoint(e: EndpointRecord): EndpointView {
  return {
    id: e.id,
    url: e.url,
    events: knownEvents(e.events),
    status: e.status,
    consecutive_failures: e.consecutiveFailures,
    created_at: e.createdAt.toISOString(),
    disabled_at: e.disabledAt?.toISOString() ?? null,
  };
}

export interface DeliveryRecord {
  id: string;
  event: string;
  runId: string | null;
  status: "pending" | "succeeded" | "failed";
  createdAt: Date;
  completedAt: Date | null;
  attempts: {
    number: number;
    startedAt: Date;
    durationMs: number;
    statusCode: number | null;
    errorClass: string | null;
    success: boolean;
  }[];
}

export function presentDelivery(d: DeliveryRecord): DeliveryView {
  return {
    id: d.id,
    event: d.event,
    run_id: d.runId,
    status: d.status,
    created_at: d.createdAt.toISOString(),
    completed_at: d.completedAt?.toISOString() ?? null,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      error_class: isOneOf(ATTEMPT_ERROR_CLASSES, a.errorClass) ? a.errorClass : null,
      success: a.success,
    })),
  };
}
