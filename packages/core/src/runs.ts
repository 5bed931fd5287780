// Run statuses, what may follow what, and how a run is shown to API clients.
export const RUN_STATUSES = ["QUEUED", "EXECUTING", "COMPLETED", "FAILED", "CANCELED"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const RUN_ERROR_CODES = [
  "CONTENT_POLICY",
  "INVALID_INPUT",
  "MODEL_ERROR",
  "TIMEOUT",
  "INTERNAL_ERROR",
] as const;
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

export const ACTIVE_STATUSES: readonly RunStatus[] = ["QUEUED", "EXECUTING"];

export function isTerminal(status: RunStatus): boolean {
  return !ACTIVE_STATUSES.includes(status);
}

export type CancelDecision = "cancel" | "already_canceled" | "not_cancelable";

export function cancelDecision(status: RunStatus): CancelDecision {
  if (status === "CANCELED") return "already_canceled";
  return ACTIVE_STATUSES.includes(status) ? "cancel" : "not_cancelable";
}

/** A run as stored, in the domain's terms. */
export interface RunRecord {
  id: string;
  status: RunStatus;
  modelId: string;
  mode: "live" | "test";
  estimatedTokens: number;
  tokensCharged: number | null;
  output: unknown;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  canceledAt: Date | null;
}

const iso = (d: Date | null) => d?.toISOString();

/** The creation response: the spec's fields, with the lower-case `queued`. */
export function presentCreatedRun(
  run: Pick<RunRecord, "id" | "modelId" | "mode" | "estimatedTokens" | "createdAt">,
  modelName: string,
) {
  return {
    run_id: run.id,
    status: "queued" as const,
    model_id: run.modelId,
    model_name: modelName,
    estimated_tokens: run.estimatedTokens,
    is_test_request: run.mode === "test",
    created_at: iso(run.createdAt),
  };
}

/** Where a queued run stands: 1-based among its model's queued runs, and when it should start. */
export interface QueuePlace {
  position: number;
  estimatedStartAt: Date | null;
}

/**
 * The status read: exactly the fields of interface-spec per status (CANCELED per the contract),
 * with a queued run's place in the queue when the caller knows it.
 */
export function presentRun(run: RunRecord, place?: QueuePlace | null) {
  const base = { run_id: run.id, status: run.status };
  switch (run.status) {
    case "QUEUED":
    case "EXECUTING":
      return {
        ...base,
        model_id: run.modelId,
        created_at: iso(run.createdAt),
        ...(run.startedAt && { started_at: iso(run.startedAt) }),
        ...(run.status === "QUEUED" &&
          place && {
            queue_position: place.position,
            estimated_start_at: place.estimatedStartAt?.toISOString() ?? null,
          }),
      };
    case "COMPLETED":
      return {
        ...base,
        model_id: run.modelId,
        output: run.output,
        tokens_charged: run.tokensCharged ?? 0,
        created_at: iso(run.createdAt),
        completed_at: iso(run.completedAt),
        duration_ms:
          run.completedAt && run.startedAt ? run.completedAt.getTime() - run.startedAt.getTime() : 0,
      };
    case "FAILED":
      return { ...base, error: { message: run.errorMessage ?? "", code: run.errorCode ?? "INTERNAL_ERROR" } };
    case "CANCELED":
      return {
        ...base,
        model_id: run.modelId,
        created_at: iso(run.createdAt),
        ...(run.startedAt && { started_at: iso(run.startedAt) }),
        canceled_at: iso(run.canceledAt),
        tokens_charged: run.tokensCharged ?? 0,
        // Canceled by the service (its Cancel-After deadline) rather than by the client.
        ...(run.errorCode && { error: { message: run.errorMessage ?? "", code: run.errorCode } }),
      };
  }
}

/**
 * A creation answered after `Prefer: wait`: the creation's fields, and once the run has ended its
 * terminal fields (status in the spec's upper case) over them.
 */
export function presentWaitedRun(
  created: ReturnType<typeof presentCreatedRun>,
  run: RunRecord | null,
): Record<string, unknown> {
  if (!run || !isTerminal(run.status)) return created;
  return { ...created, ...presentRun(run) };
}

/** Everything the console's run page shows: the status view's facts and the run's own record. */
export function presentRunDetail(run: RunRecord & { input: unknown; attempts: number }) {
  return {
    run_id: run.id,
    status: run.status,
    model_id: run.modelId,
    mode: run.mode,
    input: run.input,
    output: run.output ?? null,
    error: run.errorCode ? { code: run.errorCode, message: run.errorMessage ?? "" } : null,
    estimated_tokens: run.estimatedTokens,
    tokens_charged: run.tokensCharged ?? null,
    attempts: run.attempts,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    completed_at: run.completedAt?.toISOString() ?? null,
    canceled_at: run.canceledAt?.toISOString() ?? null,
  };
}

export function presentCanceledRun(run: { id: string; canceledAt: Date }) {
  return { run_id: run.id, status: "CANCELED" as const, canceled_at: iso(run.canceledAt) };
}
