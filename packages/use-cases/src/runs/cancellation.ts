// Canceling a run: by its client, at its Cancel-After deadline, or by its model server; charged
// for what it delivered (the partial-cancel rules), refunded the rest.
import { cancelDecision, runCharge } from "@svc/core";
import type { findRun } from "@svc/db";
import type { CancelResult, LifecycleContext } from "./lifecycle.js";

/**
 * Cancels a queued or executing run, charged for the units it delivered before (their files stay
 * reachable: runs.units_completed, written before a progress report shows them) and refunded the
 * rest; the stored state answers for the others. A report that delivers more between the read
 * and the settlement makes the settlement miss, and the cancel is decided again.
 */
export async function cancelRun(
  ctx: LifecycleContext,
  read: () => Promise<Awaited<ReturnType<typeof findRun>>>,
  runId: string,
  how: {
    reason?: (run: NonNullable<Awaited<ReturnType<typeof findRun>>>) => { code: string; message: string };
    /** Drop the waiting job and abort the executing worker (not when the model ended the run). */
    stop: boolean;
  },
): Promise<CancelResult> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await read();
    if (!run) return { kind: "not_found" };
    switch (cancelDecision(run.status)) {
      case "already_canceled":
        return { kind: "already_canceled", run: { id: run.id, canceledAt: run.canceledAt! } };
      case "not_cancelable":
        return { kind: "not_cancelable", status: run.status };
      case "cancel":
        break;
    }
    const delivered = run.unitsCompleted;
    const decision = {
      to: "CANCELED" as const,
      unitsDelivered: delivered,
      charge: runCharge(run, delivered),
      ...(how.reason && { reason: how.reason(run) }),
    };
    const at = new Date();
    const settled = await ctx.settle(run, ["QUEUED", "EXECUTING"], decision, at);
    if (settled) {
      if (how.stop)
        await ctx.queues.stopRun(runId).catch(ctx.warn("stopping the canceled run", { run_id: runId }));
      return { kind: "canceled", run: { id: runId, canceledAt: at } };
    }
    // Lost a race (the run finished, another cancel won, an output was delivered): read again.
  }
  throw new Error(`run ${runId} changed under five cancel attempts`);
}
