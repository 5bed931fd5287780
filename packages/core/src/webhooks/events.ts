// Event types, subscriptions and the exact payloads of interface-spec (Events) and the contract.
export const EVENT_TYPES = ["run.completed", "run.failed", "run.canceled"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Subscribed when `events` is omitted: everything but the opt-in run.canceled. */
export const DEFAULT_EVENTS: readonly EventType[] = ["run.completed", "run.failed"];

/** What a per-run webhook_url receives. */
export const PER_RUN_EVENTS: readonly EventType[] = ["run.completed", "run.failed"];

export const TEST_EVENT = "webhook.test";

export function eventForStatus(status: string): EventType | null {
  return status === "COMPLETED"
    ? "run.completed"
    : status === "FAILED"
      ? "run.failed"
      : status === "CANCELED"
        ? "run.canceled"
        : null;
}

export interface FinishedRun {
  id: string;
  modelId: string;
  status: string;
  output: unknown;
  tokensCharged: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  completedAt: Date | null;
  canceledAt: Date | null;
}

/** data fields common to both targets: result, error or canceled_at by event. */
function eventData(event: EventType, run: FinishedRun) {
  const base = { run_id: run.id, model_id: run.modelId };
  switch (event) {
    case "run.completed":
      return { ...base, result: run.output, tokens_charged: run.tokensCharged ?? 0 };
    case "run.failed":
      return {
        ...base,
        error: { message: run.errorMessage ?? "", code: run.errorCode ?? "INTERNAL_ERROR" },
        tokens_charged: 0,
      };
    case "run.canceled":
      return { ...base, canceled_at: run.canceledAt?.toISOString(), tokens_charged: run.tokensCharged ?? 0 };
  }
}

/** { event, data: { run_id, model_id, result, tokens_charged } } for the run's own webhook_url. */
export function perRunPayload(event: EventType, run: FinishedRun) {
  return { event, data: eventData(event, run) };
}

/** { event, webhook_id, data: { …, timestamp }, created_at } for a registered endpoint. */
export function endpointPayload(event: EventType, run: FinishedRun, webhookId: string, createdAt: Date) {
  const happenedAt = (event === "run.canceled" ? run.canceledAt : run.completedAt) ?? createdAt;
  return {
    event,
    webhook_id: webhookId,
    data: { ...eventData(event, run), timestamp: happenedAt.toISOString() },
    created_at: createdAt.toISOString(),
  };
}

export function testPayload(webhookId: string, createdAt: Date) {
  return {
    event: TEST_EVENT,
    webhook_id: webhookId,
    data: {
      message: "This is a test delivery from the Model Run Service.",
      timestamp: createdAt.toISOString(),
    },
    created_at: createdAt.toISOString(),
  };
}
