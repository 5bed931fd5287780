// Run statuses, what may follow what, and how a run is shown to API clients.
import type { CancelResultView, CreatedRunView, RunDetailView, RunView } from "./views.js";
import { isOneOf } from "./literals.js";

export const RUN_STATUSES = ["QUEUED", "EXECUTING", "COMPLETED", "FAILED", "CANCELED"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const RUN_ERROR_CODES = [
  "CONTENT_POLICY",
  "INVALID_INPUT",
  "MODEL_ERROR",
  "TIMEOUT",
  "INTERNAL_ERROR",
  // Ours: an input file the run names was deleted or expired before it executed (nothing charged).
  "INPUT_FILE_UNAVAILABLE",
] as const;
export type RunErrorCode = (typeof RUN_ERROR_CODES)[number];

/** The API styles a run can be made through: ours, Replicate's and OpenAI's (their adapters). */
export const RUN_APIS = ["native", "replicate", "openai"] as const;
export type RunApi = (typeof RUN_APIS)[number];

export const ACTIVE_STATUSES: readonly RunStatus[] = ["QUEUED", "EXECUTING"];

/** Why a run was canceled by the service rather than by its client. */
export const DEADLINE_CANCEL_CODE = "CANCEL_AFTER";

/** A status event may arrive late (two processes publish); a stream never goes backwards. */
export const statusRank = (status: RunStatus): number =>
  status === "QUEUED" ? 0 : status === "EXECUTING" ? 1 : 2;

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

/** The creation response: the spec's fields, with the lower-case `queued`. */
export function presentCreatedRun(
  run: Pick<RunRecord, "id" | "modelId" | "mode" | "estimatedTokens" | "createdAt">,
  modelName: string,
): CreatedRunView {
  return {
    run_id: run.id,
    status: "queued",
    model_id: run.modelId,
    model_name: modelName,
    estimated_tokens: run.estimatedTokens,
    is_test_request: run.mode === "test",
    created_at: run.createdAt.toISOString(),
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
export function presentRun(run: RunRecord, place?: QueuePlace | null): RunView {
  const id = run.id;
  const createdAt = run.createdAt.toISOString();
  const startedAt = run.startedAt?.toISOString();
  /** What a run that has not ended, or was canceled, shows of its life so far. */
  const sofar = <S extends RunRecord["status"]>(status: S) => ({
    run_id: id,
    status,
    model_id: run.modelId,
    created_at: createdAt,
    ...(startedAt && { started_at: startedAt }),
  });
  switch (run.status) {
    case "QUEUED":
    case "EXECUTING":
      return {
        ...sofar(run.status),
        ...(run.status === "QUEUED" &&
          place && {
            queue_position: place.position,
            estimated_start_at: place.estimatedStartAt?.toISOString() ?? null,
          }),
      };
    case "COMPLETED":
      return {
        run_id: id,
        status: run.status,
        model_id: run.modelId,
        output: run.output as Record<string, unknown>,
        tokens_charged: run.tokensCharged ?? 0,
        created_at: createdAt,
        completed_at: (run.completedAt ?? run.createdAt).toISOString(),
        duration_ms:
          run.completedAt && run.startedAt ? run.completedAt.getTime() - run.startedAt.getTime() : 0,
      };
    case "FAILED":
      return {
        run_id: id,
        status: run.status,
        error: { message: run.errorMessage ?? "", code: runErrorCode(run.errorCode) },
      };
    case "CANCELED":
      return {
        ...sofar(run.status),
        canceled_at: (run.canceledAt ?? run.createdAt).toISOString(),
        tokens_charged: run.tokensCharged ?? 0,
        // Canceled by the service (its Cancel-After deadline) rather than by the client.
        ...(run.errorCode === DEADLINE_CANCEL_CODE && {
          error: { message: run.errorMessage ?? "", code: DEADLINE_CANCEL_CODE },
        }),
      };
  }
}

/** A stored failure code as the contract names it; one it does not know is an internal error. */
function runErrorCode(code: string | null): RunErrorCode {
  return isOneOf(RUN_ERROR_CODES, code) ? code : "INTERNAL_ERROR";
}

/**
 * A creation answered after `Prefer: wait`: the creation's fields, and once the run has ended its
 * terminal fields (status in the spec's upper case) over them.
 */
export function presentWaitedRun(created: CreatedRunView, run: RunRecord | null): CreatedRunView {
  const view = run && presentRun(run);
  if (view?.status === "COMPLETED" || view?.status === "FAILED" || view?.status === "CANCELED")
    return { ...created, ...view };
  return created;
}

/** Everything the console's run page shows: the status view's facts and the run's own record. */
export function presentRunDetail(
  run: RunRecord & { input: unknown; attempts: number; api: RunApi },
): RunDetailView {
  return {
    run_id: run.id,
    status: run.status,
    model_id: run.modelId,
    mode: run.mode,
    api: run.api,
    input: run.input as Record<string, unknown>,
    output: (run.output ?? null) as Record<string, unknown> | null,
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

export function presentCanceledRun(run: { id: string; canceledAt: Date }): CancelResultView {
  return { run_id: run.id, status: "CANCELED", canceled_at: run.canceledAt.toISOString() };
}
