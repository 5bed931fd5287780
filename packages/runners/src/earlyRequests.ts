import type { RunContext } from "./runner.js";

/** How long an early request's answer waits for its run to claim it. */
const UNCLAIMED_MS = 60_000;

/**
 * Requests sent by begin() before their runs' starts committed, by run id, until run() (or
 * abandon()) claims them; one never claimed (its run failed to start here) is forgotten a while
 * after its answer (`dispose` frees what the answer holds: an unread body). For the kinds whose
 * server answers on the request that sends the work (an OpenAI-style server, a synchronous Cog
 * prediction).
 */
export class EarlyRequests<T> {
  private readonly sent = new Map<string, { answer: Promise<T>; controller: AbortController }>();

  constructor(private readonly dispose: (answer: T) => unknown = () => {}) {}

  send(runId: string, call: (signal: AbortSignal) => Promise<T>): void {
    const controller = new AbortController();
    const answer = call(controller.signal);
    this.sent.set(runId, { answer, controller });
    answer
      .catch(() => {})
      .finally(() => {
        setTimeout(() => {
          if (this.sent.get(runId)?.answer !== answer) return;
          this.sent.delete(runId);
          void answer.then(this.dispose).catch(() => {});
        }, UNCLAIMED_MS).unref();
      })
      .catch(() => {});
  }

  claim(runId: string) {
    const early = this.sent.get(runId);
    this.sent.delete(runId);
    return early;
  }

  /** The run's first answer: its early request's, if begin() sent one (aborted with the run), else `send`'s. */
  async first(
    ctx: Pick<RunContext, "runId" | "signal" | "fresh" | "begun">,
    send: () => Promise<T>,
  ): Promise<T> {
    const early = ctx.fresh && ctx.begun && (await ctx.begun) ? this.claim(ctx.runId) : undefined;
    if (!early) return send();
    const onAbort = () => early.controller.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await early.answer;
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }
}
