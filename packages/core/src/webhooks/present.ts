// How webhook endpoints and deliveries are shown to API clients. Never a secret.
export interface EndpointRecord {
  id: string;
  url: string;
  events: string[];
  status: string;
  consecutiveFailures: number;
  createdAt: Date;
  disabledAt: Date | null;
}

export function presentEndpoint(e: EndpointRecord) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
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
  status: string;
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

export function presentDelivery(d: DeliveryRecord) {
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
      error_class: a.errorClass,
      success: a.success,
    })),
  };
}
