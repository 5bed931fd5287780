// A Cog prediction's outputs so far (a model that yields its images one by one, sent with each
// `output` webhook) reach clients as files of our store, never as the model server's own URLs:
// those may be internal, and name the prediction's other files. Each report's new files are
// copied before it is shown; a report that is not shown (its run ended meanwhile) leaves nothing.
import { fileReferences, outputKindOf, type RunnerSettings, type RunProgress } from "@svc/core";
import type { Logger } from "@svc/logger";
import { cogFetchPolicy, copyOutputs, outputOfKind } from "@svc/runners";
import type { OutputStorage } from "@svc/storage";
import type { ProgressRecorder } from "@svc/use-cases";

/** How long copying one report's new files may take. */
const COPY_TIMEOUT_MS = 120_000;

export interface CogProgress {
  /** Resolves once the report is decided (shown or dropped); one run's reports in arrival order. */
  report(runId: string, report: RunProgress): Promise<void>;
  /** The prediction ended: what was copied for its reports is forgotten. */
  ended(runId: string): void;
}

export function cogProgressOutputs(deps: {
  storage: OutputStorage;
  /** The run's runner settings and units asked for; null for an unknown run. */
  basisOf(runId: string): Promise<{ runner: RunnerSettings; unitsRequested: number } | null>;
  record: ProgressRecorder["record"];
  limits: { allowPrivateOutputs: boolean; maxOutputBytes: number; publicBaseUrl?: string };
  logger: Logger;
}): CogProgress {
  /** Per run: the model's file references already copied and shown (ref -> our URL), in order. */
  const runs = new Map<string, { copied: Map<string, string>; chain: Promise<void> }>();

  async function decide(runId: string, report: RunProgress, copied: Map<string, string>) {
    const { output, ...rest } = report;
    const basis = output === undefined ? null : await deps.basisOf(runId);
    const settings = basis?.runner;
    if (output === undefined || settings?.kind !== "cog") {
      if (Object.keys(rest).length) await deps.record(runId, rest);
      return;
    }
    const outputs = deps.storage(runId);
    let urls: string[];
    try {
      urls = await copyOutputs(
        output,
        outputs,
        AbortSignal.timeout(COPY_TIMEOUT_MS),
        cogFetchPolicy(settings.servers, deps.limits),
        copied,
      );
    } catch (error) {
      deps.logger.warn("a prediction's outputs so far could not be copied; its report goes without them", {
        run_id: runId,
        error,
      });
      await outputs.discardExcept(null);
      if (Object.keys(rest).length) await deps.record(runId, rest);
      return;
    }
    // The basis read here, passed on: the recorder need not read it again.
    const counted = { kind: outputKindOf(settings), unitsRequested: basis!.unitsRequested };
    if (await deps.record(runId, { ...rest, output: outputOfKind(settings.output, urls) }, counted)) {
      for (const [i, ref] of fileReferences(output).entries()) copied.set(ref, urls[i]!);
    } else await outputs.discardExcept(null);
  }

  return {
    report(runId, report) {
      const run = runs.get(runId) ?? { copied: new Map(), chain: Promise.resolve() };
      runs.set(runId, run);
      const decided = run.chain.then(() =>
        decide(runId, report, run.copied).catch((error: unknown) => {
          deps.logger.warn("recording a prediction's progress failed", { run_id: runId, error });
        }),
      );
      run.chain = decided;
      return decided;
    },
    ended(runId) {
      const run = runs.get(runId);
      if (!run) return;
      void run.chain.then(() => {
        if (runs.get(runId) === run) runs.delete(runId);
      });
    },
  };
}
