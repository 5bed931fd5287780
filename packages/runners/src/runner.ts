import type { RunErrorCode, RunnerSettings, RunProgress } from "@svc/core";
import type { RunOutputs } from "@svc/storage";

export interface RunContext {
  runId: string;
  /** The input after schema validation, defaults applied. */
  input: Record<string, unknown>;
  settings: RunnerSettings;
  /** Units the run asked for (and reserved): the charge when a runner cannot count what it made. */
  unitsRequested: number;
  /** Aborted on cancel or timeout; a runner stops as soon as it can and throws signal.reason. */
  signal: AbortSignal;
  outputs: RunOutputs;
  /** Tells the run's event stream how far the runner got; never throws, never waits. */
  progress(report: RunProgress): void;
  /** The slot the scheduler leased for the run (a model server's, for Cog), when it has one. */
  slot?: string;
  /** The run's first start: no earlier attempt can have left work behind to re-attach to. */
  fresh?: boolean;
  /** The work was sent before the start committed (Runner.begin): true when it was accepted. */
  begun?: Promise<boolean>;
  /**
   * A file input's bytes, by the id the input holds (runners whose kind reads files itself, the
   * built-in ones; model servers get URLs instead); undefined when it is gone.
   */
  inputFile?(id: string): Promise<{ bytes: Uint8Array; contentType: string } | undefined>;
  /** Weights' bytes by id (a model that applies the run's LoRAs itself); undefined when deleted. */
  weights?(id: string): Promise<Uint8Array | undefined>;
  /** The model's file fields that this run's input names (a form's files, for a server that takes them so). */
  fileFields?: readonly string[];
}

/** What a run made; the units it is charged for follow from it (core's unitsProduced). */
export interface RunResult {
  output: Record<string, unknown>;
}

export interface Runner {
  run(ctx: RunContext): Promise<RunResult>;
  /**
   * Sends the work to its slot before the run's start has committed (a Cog prediction: the GPU
   * starts while Postgres records the start); run() then continues it. False when not sent.
   */
  begin?(ctx: Pick<RunContext, "runId" | "input" | "settings" | "slot">): Promise<boolean>;
  /** Stops work that begin() sent for a run that turned out to need no execution. */
  abandon?(ctx: Pick<RunContext, "runId" | "settings" | "slot">): Promise<void>;
}

/**
 * What a runner keeps about a run's work outside its process (an OpenAI-style server's video job
 * id), so that the worker taking the run over after a crash re-attaches to that work rather than
 * sending it again. Kept a day.
 */
export interface RunNotes {
  get(runId: string, what: string): Promise<string | null>;
  set(runId: string, what: string, value: string): Promise<void>;
}

/** A failure that belongs to the run (it ends FAILED with this code) rather than to the worker. */
export class RunnerError extends Error {
  constructor(
    readonly code: RunErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "RunnerError";
  }
}

/** The model server canceled the prediction itself: the run ends CANCELED, charged nothing. */
export class RunnerCanceled extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunnerCanceled";
  }
}

/** Waits ms, or throws the signal's reason as soon as it aborts. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** The places runs hold on model servers (the scheduler's slots), as every server kind uses them. */
export interface ServerSlots {
  /** Moves the run's lease to a free slot on a server not in `avoid`; null when none is free now. */
  relocate(runId: string, avoid: readonly string[]): Promise<string | null>;
  /** The run's work has ended on its server: the slot goes to the next run. */
  release(runId: string): Promise<void>;
}
