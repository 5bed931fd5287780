import type { Worker } from "bullmq";

export interface BrakeOptions {
  /** The first pause; it doubles while errors go on, up to maxMs. */
  minMs: number;
  maxMs: number;
  /** After this long without an error the next pause is minMs again. */
  quietMs: number;
}

export const DEFAULT_BRAKE: BrakeOptions = { minMs: 250, maxMs: 30_000, quietMs: 60_000 };

/**
 * BullMQ waits for a lost connection but fetches again at once when Redis answers with an error:
 * a Redis that answers every call with MOVED (a cluster node reached as one Redis), READONLY,
 * NOPERM or OOM turns each worker's loop into a spin (measured: ~552k error lines per queue and
 * a 2.6 GB log in two minutes). On such an answer the worker stops taking new jobs (the running
 * ones go on) and takes them again after a pause that doubles while the errors go on.
 *
 * Returns the handler for the worker's errors: the pause it started (ms), or undefined when the
 * error was not Redis's answer or a pause is already running.
 */
export function brakeOnRedisErrors(worker: Worker, options: BrakeOptions = DEFAULT_BRAKE) {
  let pauseMs = 0;
  let lastPauseAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  return {
    onError(error: Error): number | undefined {
      if (error.name !== "ReplyError" || timer || worker.closing) return undefined;
      const now = Date.now();
      pauseMs =
        now - lastPauseAt - pauseMs > options.quietMs ? options.minMs : Math.min(pauseMs * 2, options.maxMs);
      lastPauseAt = now;
      void worker.pause(true);
      timer = setTimeout(() => {
        timer = undefined;
        if (!worker.closing) void worker.resume();
      }, pauseMs);
      return pauseMs;
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
