// How a run's reservation is settled and what its terminal event says: decided here, applied in
// one statement by the run lifecycle (packages/db runTransitions), for a batch of runs at a time.
import { ledgerEffect } from "./ledger.js";
import type { RunErrorCode, RunStatus } from "./runs.js";
import { endpointPayload, eventForStatus, perRunPayload, type startedBodies } from "./webhooks/events.js";

export type SettlementDecision =
  | { to: "COMPLETED"; output: Record<string, unknown>; unitsCompleted: number; charge: number }
  | { to: "FAILED"; errorCode: RunErrorCode; errorMessage: string }
  | {
      to: "CANCELED";
      /** The units delivered before the cancel (runs.units_completed as read), the charge's basis. */
      unitsDelivered: number;
      charge: number;
      reason?: { code: string; message: string };
    };

export interface LedgerMove {
  amount: number;
  balanceDelta: number;
  reservedDelta: number;
}

export interface SettlementPlan {
  to: SettlementDecision["to"];
  /** The statuses the run may be in; anything else means another settlement won. */
  from: readonly RunStatus[];
  /** The reservation the charge was computed from; it must still be the run's. */
  expectedReserved: number;
  /**
   * A cancel's charge basis: the units delivered so far must still be the run's, or a progress
   * report that delivered another output came in between and the cancel is decided again.
   */
  expectedUnitsCompleted?: number;
  /** completed_at or canceled_at. */
  at: Date;
  tokensCharged: number;
  /** CHARGE what is owed (never more than the reservation), RELEASE the rest. */
  charge: LedgerMove;
  release: LedgerMove;
  unitsCompleted?: number;
  output?: Record<string, unknown>;
  errorCode?: string;
  errorMessage?: string;
  event: string;
  /** Body for the run's own webhook_url, sent when its webhook_events include the event. */
  runBody: string;
  /** An endpoint's body is endpointHead + JSON of the endpoint id + endpointTail. */
  endpointHead: string;
  endpointTail: string;
  /**
   * Set for a run started and ended in one transition (an instant run, from QUEUED): its start
   * time and its run.started bodies, recorded with the settlement.
   */
  start?: { at: Date } & ReturnType<typeof startedBodies>;
}

const move = (kind: "CHARGE" | "RELEASE", amount: number): LedgerMove => ({
  amount,
  ...ledgerEffect(kind, amount),
});

/**
 * The settlement of a run holding `reserved` tokens, decided at `at`: a FAILED run is charged
 * nothing, any other never more than its reservation. The webhook bodies are fixed here, byte for
 * byte, so every attempt sends and signs the same text; an endpoint's body differs only by its id,
 * which the statement that records the deliveries puts in.
 */
export function planSettlement(
  run: { id: string; modelId: string; reservedTokens: number },
  from: readonly RunStatus[],
  decision: SettlementDecision,
  at: Date,
): SettlementPlan {
  const reserved = run.reservedTokens;
  const charge = decision.to === "FAILED" ? 0 : Math.min(reserved, Math.max(0, Math.floor(decision.charge)));
  const event = eventForStatus(decision.to)!;
  const finished = {
    id: run.id,
    modelId: run.modelId,
    status: decision.to,
    output: decision.to === "COMPLETED" ? decision.output : null,
    tokensCharged: charge,
    errorCode: decision.to === "FAILED" ? decision.errorCode : null,
    errorMessage: decision.to === "FAILED" ? decision.errorMessage : null,
    completedAt: decision.to === "CANCELED" ? null : at,
    canceledAt: decision.to === "CANCELED" ? at : null,
  };
  // The id is the payload's second field, after the fixed event name: the first occurrence of the
  // marker is always that field, whatever the output contains.
  const marker = '"webhook_id":""';
  const whole = JSON.stringify(endpointPayload(event, finished, "", at));
  const cut = whole.indexOf(marker);
  return {
    to: decision.to,
    from,
    expectedReserved: reserved,
    at,
    tokensCharged: charge,
    charge: move("CHARGE", charge),
    release: move("RELEASE", reserved - charge),
    ...(decision.to === "COMPLETED" && { output: decision.output, unitsCompleted: decision.unitsCompleted }),
    ...(decision.to === "FAILED" && { errorCode: decision.errorCode, errorMessage: decision.errorMessage }),
    ...(decision.to === "CANCELED" && { expectedUnitsCompleted: decision.unitsDelivered }),
    ...(decision.to === "CANCELED" &&
      decision.reason && { errorCode: decision.reason.code, errorMessage: decision.reason.message }),
    event,
    runBody: JSON.stringify(perRunPayload(event, finished)),
    endpointHead: whole.slice(0, cut + marker.length - 2),
    endpointTail: whole.slice(cut + marker.length),
  };
}
