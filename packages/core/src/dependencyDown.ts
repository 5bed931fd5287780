const DOWN_CODES = new Set([
  // Postgres: connection failures, the server shutting down or starting up, too many connections.
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "P1001",
  "P1002",
  "P1017",
]);
const DOWN_MESSAGES =
  /ECONNREFUSED|Connection terminated|timeout exceeded when trying to connect|Can't reach database server|Connection is closed|Stream isn't writeable|Client has encountered a connection error|Reached the max retries per request limit/i;

/** True when an error means Postgres or Redis is unreachable (a 503), rather than a bug (a 500). */
export function isDependencyDown(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 5) return false;
  const { code, message, name, cause } = error as {
    code?: unknown;
    message?: unknown;
    name?: unknown;
    cause?: unknown;
  };
  if (typeof code === "string" && DOWN_CODES.has(code)) return true;
  if (name === "PrismaClientInitializationError") return true;
  if (typeof message === "string" && DOWN_MESSAGES.test(message)) return true;
  return isDependencyDown(cause, depth + 1);
}

export interface RetryWhileDownOptions {
  /** Give up (rethrow) once this long has passed since the first failure. */
  horizonMs: number;
  /** First delay; it doubles up to maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Runs fn until it succeeds or fails for a reason other than a dependency being down; while
 * Postgres or Redis is unreachable it is retried with capped exponential backoff, up to the
 * horizon. For work that must not be thrown away by an outage (a finished run's settlement).
 */
export async function retryWhileDown<T>(fn: () => Promise<T>, options: RetryWhileDownOptions): Promise<T> {
  const { horizonMs, firstDelayMs = 200, maxDelayMs = 2_000, onRetry } = options;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  let firstFailure: number | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      firstFailure ??= now();
      if (!isDependencyDown(error) || now() - firstFailure >= horizonMs) throw error;
      const delayMs = Math.min(maxDelayMs, firstDelayMs * 2 ** (attempt - 1));
      onRetry?.(error, attempt, delayMs);
      await sleep(delayMs);
    }
  }
}
