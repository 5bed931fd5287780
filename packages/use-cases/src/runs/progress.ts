// A runner's progress reports on their way to the run's event stream. A report that carries
// outputs hands the client files it keeps whatever happens next, so those units are recorded on
// the run first (a cancel charges them) and the report is shown only if the run had not ended
// then: a run canceled meanwhile never shows outputs it was not charged for.
import {
  outputKindOf,
  unitsDelivered,
  type OutputKind,
  type RecordedEvent,
  type RunProgress,
} from "@svc/core";
import { recordUnitsDelivered, runOutputBasis, sqlPool, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";

/** How a run's outputs are counted, when the caller knows it (the executing worker does). */
export interface OutputBasis {
  kind: OutputKind;
  unitsRequested: number;
}

export interface ProgressRecorder {
  /**
   * Never throws, never waits: reports of one run are recorded in the order they were made. The
   * promise (which never rejects) tells whether the report was shown: its outputs are the client's.
   */
  record(runId: string, report: RunProgress, basis?: OutputBasis): Promise<boolean>;
  /**
   * Resolves when the run's reports made so far are decided and their events handed to Redis (or
   * dropped): its worker waits for this before settling, so that the last report is shown (it
   * needs the run still EXECUTING) and comes before the end.
   */
  flush(runId: string): Promise<void>;
  /** Resolves when every report made so far is decided (see flush). */
  drain(): Promise<void>;
}

export function createProgressRecorder(deps: {
  db: Db;
  recordEvents(events: readonly RecordedEvent[]): Promise<void>;
  logger: Logger;
}): ProgressRecorder {
  const pool = sqlPool(deps.db);
  const chains = new Map<string, Promise<void>>();

  async function basisOf(runId: string): Promise<OutputBasis | null> {
    const found = await runOutputBasis(pool, runId);
    if (!found) return null;
    return { kind: outputKindOf(found.runner), unitsRequested: found.unitsRequested };
  }

  /** False when the report must not be shown: its outputs could not be recorded as delivered. */
  async function deliverable(runId: string, report: RunProgress, given?: OutputBasis): Promise<boolean> {
    if (report.output === undefined) return true;
    const basis = given ?? (await basisOf(runId));
    if (!basis) return false;
    const units = unitsDelivered(basis.kind, report.output, basis.unitsRequested);
    return units === 0 || recordUnitsDelivered(pool, runId, units);
  }

  const failed = (runId: string) => (error: unknown) =>
    deps.logger.warn("recording progress failed", { run_id: runId, error });

  /**
   * Decides the report (a database statement when it shows outputs) and hands its event to Redis
   * without waiting for it: the event is queued on the connection that later carries the run's end,
   * so it comes first, and a Redis outage holds neither the chain nor the run's settlement.
   */
  async function recordOne(runId: string, report: RunProgress, basis?: OutputBasis): Promise<boolean> {
    try {
      if (!(await deliverable(runId, report, basis))) {
        deps.logger.info("progress with outputs dropped: the run has ended", { run_id: runId });
        return false;
      }
      deps
        .recordEvents([{ runId, event: { type: "progress", at: new Date().toISOString(), data: report } }])
        .catch(failed(runId));
      return true;
    } catch (error) {
      failed(runId)(error);
      // Its units may have been recorded before the failure: its outputs stay, as if shown.
      return report.output !== undefined;
    }
  }

  return {
    record(runId, report, basis) {
      const previous = chains.get(runId) ?? Promise.resolve();
      const shown = previous.then(() => recordOne(runId, report, basis));
      const next = shown.then(() => {});
      chains.set(runId, next);
      void next.then(() => {
        if (chains.get(runId) === next) chains.delete(runId);
      });
      return shown;
    },
    async flush(runId) {
      await chains.get(runId);
    },
    async drain() {
      await Promise.all([...chains.values()]);
    },
  };
}
