// Time limits that fire. On Node 20, AbortSignal.any holds its sources weakly and
// AbortSignal.timeout's timer holds its signal weakly too, so `AbortSignal.any([s,
// AbortSignal.timeout(ms)])` loses its timeout as soon as garbage collection runs first: a wait or
// a request to a hung server then never ends. Here the timer holds the controller strongly, and
// each source holds it through its listener, until `clear`.

export interface TimeLimit {
  /** Aborts when the time is up (a TimeoutError) or when any source aborts (with its reason). */
  signal: AbortSignal;
  /** Stops the timer and leaves the sources (call it when the limited work is over). */
  clear(): void;
}

/** A signal that aborts after `ms` or with any of `sources`, whichever comes first. */
export function timeLimit(ms: number, ...sources: (AbortSignal | null | undefined)[]): TimeLimit {
  const controller = new AbortController();
  const linked: AbortSignal[] = [];
  const onAbort = function (this: AbortSignal) {
    abort(this.reason);
  };
  const timer = setTimeout(
    () => abort(new DOMException(`The operation was aborted after ${ms} ms.`, "TimeoutError")),
    ms,
  );
  function clear() {
    clearTimeout(timer);
    for (const source of linked) source.removeEventListener("abort", onAbort);
    linked.length = 0;
  }
  function abort(reason: unknown) {
    clear();
    if (!controller.signal.aborted) controller.abort(reason);
  }
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      abort(source.reason);
      break;
    }
    source.addEventListener("abort", onAbort, { once: true });
    linked.push(source);
  }
  return { signal: controller.signal, clear };
}

/** Runs `work` with a time limit (and the sources), clearing it when the work ends. */
export async function withTimeLimit<T>(
  ms: number,
  sources: (AbortSignal | null | undefined)[],
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const limit = timeLimit(ms, ...sources);
  try {
    return await work(limit.signal);
  } finally {
    limit.clear();
  }
}
