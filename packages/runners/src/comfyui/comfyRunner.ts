import {
  comfyOutputFiles,
  namesFiles,
  serverOfSlot,
  type ComfyHistoryEntry,
  type ComfyUISettings,
} from "@svc/core";
import { RunnerCanceled, RunnerError, type RunContext, type Runner } from "../runner.js";
import { outputOfKind } from "../outputs.js";
import { Channels } from "./channels.js";
import { follow } from "./follow.js";
import { outputFiles, showAsMade } from "./outputs.js";
import { cancelPrompt, findPrompt, sendPrompt, ServerFailed, uploadInputs } from "./requests.js";

export interface ComfyRunnerDeps {
  /** Gives a run's slot back once its server is done (the worker also does, at the run's end). */
  slots?: { release(runId: string): Promise<void> };
  maxOutputBytes: number;
  log?(level: "debug" | "info", message: string, meta: Record<string, unknown>): void;
}

/** How long a prompt sent by begin() waits for its run to claim it. */
const UNCLAIMED_MS = 60_000;

/** A failed prompt's end as the run's: interrupted (canceled on the server) or the model's failure. */
function failure(entry: ComfyHistoryEntry): Error | null {
  if (entry.status?.status_str !== "error") return null;
  const messages = (entry.status.messages ?? []) as [string, Record<string, unknown>][];
  if (messages.some(([type]) => type === "execution_interrupted"))
    return new RunnerCanceled("The prompt was interrupted on the ComfyUI server.");
  const error = messages.find(([type]) => type === "execution_error")?.[1];
  return new RunnerError(
    "MODEL_ERROR",
    `ComfyUI failed: ${String(error?.exception_message ?? "the prompt failed")}`.slice(0, 500),
  );
}

/**
 * Runs a workflow on ComfyUI servers, on the server of the slot the scheduler leased the run (one
 * prompt per server: ComfyUI's own FIFO queue never holds our runs). The run's id is in its
 * prompt's extra_data: before sending, a run that is not fresh looks for its prompt in the
 * server's queue and history, so a worker restarted mid-prompt re-attaches instead of sending it
 * twice. Progress comes over /ws (follow.ts); the end is read from /history (also the fallback
 * when the socket drops). Cancel interrupts the running prompt (POST /interrupt with its id) or
 * deletes a pending one from the queue.
 */
export function createComfyRunner(deps: ComfyRunnerDeps): Runner & { close(): void } {
  const log = deps.log ?? (() => {});
  const channels = new Channels();

  /**
   * Prompts sent by begin() before their runs' starts committed, by run id, until run() (or
   * abandon()) claims them; one never claimed (its run failed to start here) is forgotten.
   */
  const sent = new Map<string, Promise<string>>();
  const claim = (runId: string) => {
    const early = sent.get(runId);
    sent.delete(runId);
    return early;
  };

  /** The run's prompt: begin()'s, one an earlier attempt sent (re-attached), or sent now. */
  async function promptOf(ctx: RunContext, s: ComfyUISettings, server: string) {
    const early = ctx.fresh && ctx.begun && (await ctx.begun) ? claim(ctx.runId) : undefined;
    if (early) {
      const promptId = await early;
      ctx.signal.throwIfAborted();
      return { promptId, reattached: false };
    }
    const found = ctx.fresh ? null : await findPrompt(s, server, ctx.runId);
    if (found) {
      log("info", "comfyui prompt re-attached", { server, prompt_id: found, run_id: ctx.runId });
      return { promptId: found, reattached: true };
    }
    const uploaded = await uploadInputs(ctx, s, server);
    const run = { runId: ctx.runId, input: ctx.input, uploaded };
    return { promptId: await sendPrompt(s, server, channels.clientId, run, ctx.signal), reattached: false };
  }

  /** The prompt followed to its end, its outputs stored. */
  async function execute(
    ctx: RunContext,
    s: ComfyUISettings,
    server: string,
    promptId: string,
    reattached: boolean,
  ) {
    let freed: Promise<unknown> | undefined;
    const free = () => (freed ??= (deps.slots?.release(ctx.runId) ?? Promise.resolve()).catch(() => {}));
    const files = outputFiles(ctx, s, server, deps.maxOutputBytes);
    const shown = showAsMade(ctx, s, files, () => freed);
    const channel = channels.of(server);
    const entry = await follow({ ctx, s, server, promptId, channel, free, made: shown.made, reattached });
    await free();
    const failed = failure(entry);
    if (failed) throw failed;
    await shown.shown();
    return { output: outputOfKind(s.output, await files(comfyOutputFiles(entry))) };
  }

  return {
    // The prompt leaves while the run's start is recorded; run() follows it in this process (core's
    // executesWhereLeased). Not for an input with files: those are uploaded first, at the start.
    async begin({ runId, input, settings, slot }) {
      const server = slot ? serverOfSlot(slot) : null;
      if (settings.kind !== "comfyui" || !server || namesFiles(input)) return false;
      channels.of(server);
      const promptId = sendPrompt(settings, server, channels.clientId, { runId, input, uploaded: {} });
      sent.set(runId, promptId);
      promptId.catch(() => {});
      setTimeout(() => {
        if (sent.get(runId) === promptId) sent.delete(runId);
      }, UNCLAIMED_MS).unref();
      return true;
    },

    async abandon({ runId, settings, slot }) {
      const early = claim(runId);
      const server = slot ? serverOfSlot(slot) : null;
      if (!early || !server || settings.kind !== "comfyui") return;
      const promptId = await early.catch(() => null);
      if (promptId) await cancelPrompt(settings, server, promptId).catch(() => {});
    },

    close: () => channels.close(),

    async run(ctx) {
      if (ctx.settings.kind !== "comfyui") throw new RunnerError("INTERNAL_ERROR", "not a ComfyUI model");
      const s = ctx.settings;
      const server = ctx.slot ? serverOfSlot(ctx.slot) : null;
      if (!server) throw new Error("a ComfyUI model's run has no server slot");
      channels.of(server);
      let promptId: string | null = null;
      try {
        const prompt = await promptOf(ctx, s, server);
        promptId = prompt.promptId;
        return await execute(ctx, s, server, prompt.promptId, prompt.reattached);
      } catch (error) {
        if (ctx.signal.aborted && promptId) await cancelPrompt(s, server, promptId).catch(() => {});
        if (error instanceof ServerFailed)
          log("info", "comfyui server failed", { server, error: error.message });
        throw error;
      }
    },
  };
}
