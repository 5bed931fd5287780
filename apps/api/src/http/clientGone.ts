import type { Response } from "express";

/**
 * Calls `then` once the client has gone (the response closed), at once if it has already gone.
 * A listener attached after an await would miss a `close` that came during it, and whatever it
 * was to give back (a held place, a stream's timers) would stay taken for good.
 */
export function whenClientGone(res: Response, then: () => void): void {
  if (res.closed) then();
  else res.once("close", then);
}

/** Aborted when the client has gone, already aborted if it has. */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  whenClientGone(res, () => controller.abort());
  return controller.signal;
}
