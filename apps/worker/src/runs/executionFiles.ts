// The files of one execution (executeRun.ts): which of them a client was shown, and the rest
// deleted when the execution ends.
import { outputKindOf, type RunProgress } from "@svc/core";
import type { StartedRun } from "@svc/db";
import type { Logger } from "@svc/logger";
import type { ExecuteDeps } from "./executeRun.js";

export type ExecutionFiles = ReturnType<typeof executionFiles>;

/**
 * The files of one execution and what became of them. A file is the client's once a progress
 * report showing it was shown (its unit recorded, so a cancel charges it) or once a settlement of
 * this worker's kept it in the run's output; at the end every other file it saved is deleted: one
 * made after a cancel or a time-out, whose unit was never charged, is never served.
 */
export function executionFiles(
  deps: Pick<ExecuteDeps, "storage" | "progress">,
  run: Pick<StartedRun, "id" | "runner" | "unitsRequested">,
) {
  const outputs = deps.storage(run.id);
  const kept: Promise<unknown>[] = [];
  const basis = { kind: outputKindOf(run.runner), unitsRequested: run.unitsRequested };
  return {
    outputs,
    progress(report: RunProgress) {
      const shown = deps.progress.record(run.id, report, basis);
      if (report.output !== undefined) kept.push(shown.then((yes) => (yes ? report.output : undefined)));
    },
    keep(output: unknown) {
      kept.push(Promise.resolve(output));
    },
    async close(log: Logger) {
      try {
        const deleted = await outputs.discardExcept(await Promise.all(kept));
        if (deleted) log.info("outputs never shown were deleted", { files: deleted });
      } catch (error) {
        // Their names cannot be derived from any URL shown; retention deletes them later.
        log.warn("deleting outputs never shown failed", { error });
      }
    },
  };
}
