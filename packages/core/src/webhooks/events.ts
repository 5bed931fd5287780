// Event types, subscriptions and the exact payloads of interface-spec (Events) and the contract.
export const RUN_EVENT_TYPES = ["run.started", "run.completed", "run.failed", "run.canceled"] as const;
/**
 * Spend alerts, for registered endpoints only (opt-in): account.balance_low when a reservation
 * leaves the account's available tokens below its threshold, key.budget_reached when a key's
 * budget first refuses a run in a period. Only live endpoints receive them (test runs cost nothing).
 */
export const ACCOUNT_EVENT_TYPES = ["account.balance_low", "key.budget_reached"] as const;
/**
 * A batch ended (issue #61): completed, expired (its window ended first) or canceled. Sent to the
 * batch's own webhook_url and to endpoints of its mode that subscribe to them (opt-in).
 */
export const BATCH_EVENT_TYPES = ["batch.completed", "batch.expired", "batch.canceled"] as const;
export type BatchEvent = (typeof BATCH_EVENT_TYPES)[number];
export const EVENT_TYPES = [...RUN_EVENT_TYPES, ...ACCOUNT_EVENT_TYPES, ...BATCH_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** The events that end a run (settlement records them); run.started is recorded at the start. */
export type EndEvent = Exclude<(typeof RUN_EVENT_TYPES)[number], "run.started">;

/** Subscribed when `events` is omitted: everything but the opt-in run.started and run.canceled. */
export const DEFAULT_EVENTS: readonly EventType[] = ["run.completed", "run.failed"];

/** What a run's own webhook_url receives unless its webhook_events_filter says otherwise. */
export const PER_RUN_EVENTS: readonly EndEvent[] = ["run.completed", "run.failed"];

export const TEST_EVENT = "webhook.test";

export function eventForStatus(status: string): EndEvent | null {
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
function eventData(event: EndEvent, run: FinishedRun) {
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
export function perRunPayload(event: EndEvent, run: FinishedRun) {
  return { event, data: eventData(event, run) };
}

/** { event, webhook_id, data: { …, timestamp }, created_at } for a registered endpoint. */
export function endpointPayload(event: EndEvent, run: FinishedRun, webhookId: string, createdAt: Date) {
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

// Values no real id or time can be: a NUL character opens each.
const SLOTS = {
  runId: "\u0000run",
  modelId: "\u0000model",
  startedAt: "\u0000at",
  webhookId: "\u0000webhook",
};
const placeholdersOf = <K extends string>(slots: Record<K, string | number>) =>
  Object.fromEntries(Object.entries(slots).map(([k, v]) => [k, JSON.stringify(v)])) as Record<K, string>;

/**
 * The run.started bodies, for the statement that starts runs to fill in the values it alone
 * knows: each placeholder (the JSON of a slot value) is replaced by the JSON of the run id, model
 * id, start time (rendered as toISOString would) and, for an endpoint, its id.
 */
export function startedTemplates() {
  const data = { run_id: SLOTS.runId, model_id: SLOTS.modelId, started_at: SLOTS.startedAt };
  return {
    perRun: JSON.stringify({ event: "run.started", data }),
    endpoint: JSON.stringify({
      event: "run.started",
      webhook_id: SLOTS.webhookId,
      data: { ...data, timestamp: SLOTS.startedAt },
      created_at: SLOTS.startedAt,
    }),
    placeholders: placeholdersOf(SLOTS),
  };
}

// Numbers no balance can be (an int column is at most 2^31 - 1).
const BALANCE_SLOTS = {
  webhookId: SLOTS.webhookId,
  available: -9_000_000_001,
  threshold: -9_000_000_002,
  at: "\u0000at",
};

/**
 * The account.balance_low body, for the statement that reserves tokens to fill in per endpoint:
 * its id, the available tokens the reservation left, the threshold and the time (each placeholder
 * is the JSON of its slot value, replaced by the JSON of the real one).
 */
export function balanceLowTemplate() {
  return {
    body: JSON.stringify({
      event: "account.balance_low",
      webhook_id: BALANCE_SLOTS.webhookId,
      data: {
        available_tokens: BALANCE_SLOTS.available,
        threshold: BALANCE_SLOTS.threshold,
        timestamp: BALANCE_SLOTS.at,
      },
      created_at: BALANCE_SLOTS.at,
    }),
    placeholders: placeholdersOf(BALANCE_SLOTS),
  };
}

/** What a batch event reports: the batch as it ended. */
export interface BatchEnded {
  batchId: string;
  modelId: string;
  counts: { total: number; completed: number; failed: number };
  tokensCharged: number;
  metadata: Record<string, string> | null;
  at: Date;
}

/**
 * A batch event's body, with the endpoint's id left as a placeholder (a batch's own webhook_url
 * gets null there) for the statement that ends the batch to fill in.
 */
export function batchEventTemplate(event: BatchEvent, ended: BatchEnded) {
  return {
    body: JSON.stringify({
      event,
      webhook_id: SLOTS.webhookId,
      data: {
        batch_id: ended.batchId,
        model_id: ended.modelId,
        status: event.slice("batch.".length),
        counts: ended.counts,
        tokens_charged: ended.tokensCharged,
        metadata: ended.metadata,
        timestamp: ended.at.toISOString(),
      },
      created_at: ended.at.toISOString(),
    }),
    webhookIdSlot: JSON.stringify(SLOTS.webhookId),
  };
}

/** What key.budget_reached reports: the key, its budget and period, and what the refused run needed. */
export interface BudgetReached {
  keyId: string;
  budgetTokens: number;
  period: "day" | "month" | "total";
  usedTokens: number;
  neededTokens: number;
  /** Null for a total budget, which never resets. */
  resetsAt: Date | null;
  at: Date;
}

const KEY_NAME_SLOT = "\u0000name";

/**
 * The key.budget_reached body, with the endpoint's id and the key's name left as placeholders for
 * the statement that records it to fill in.
 */
export function budgetReachedTemplate(reached: BudgetReached) {
  return {
    body: JSON.stringify({
      event: "key.budget_reached",
      webhook_id: SLOTS.webhookId,
      data: {
        key_id: reached.keyId,
        key_name: KEY_NAME_SLOT,
        budget_tokens: reached.budgetTokens,
        period: reached.period,
        used_tokens: reached.usedTokens,
        needed_tokens: reached.neededTokens,
        resets_at: reached.resetsAt?.toISOString() ?? null,
        timestamp: reached.at.toISOString(),
      },
      created_at: reached.at.toISOString(),
    }),
    placeholders: placeholdersOf({ webhookId: SLOTS.webhookId, keyName: KEY_NAME_SLOT }),
  };
}

// Made once: an instant run's settlement fills them in on the run path.
const STARTED = startedTemplates();

/**
 * A run's run.started bodies, filled in here rather than by the statement that starts it: for a
 * run started and ended in one transition (an instant run), whose settlement records them. The
 * same templates as the start statement's, so both ways give the same bytes. An endpoint's body is
 * endpointHead + the JSON of its id + endpointTail.
 */
export function startedBodies(run: { id: string; modelId: string }, startedAt: Date) {
  const { perRun, endpoint, placeholders: p } = STARTED;
  const fill = (template: string) =>
    template
      .split(p.runId)
      .join(JSON.stringify(run.id))
      .split(p.modelId)
      .join(JSON.stringify(run.modelId))
      .split(p.startedAt)
      .join(JSON.stringify(startedAt.toISOString()));
  const whole = fill(endpoint);
  const cut = whole.indexOf(p.webhookId);
  return {
    runBody: fill(perRun),
    endpointHead: whole.slice(0, cut),
    endpointTail: whole.slice(cut + p.webhookId.length),
  };
}
