const DOWN_CODES = new Set([
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
  /ECONNREFUSED|Connection terminated|timeout exceeded when trying to connect|Can't reach database server|Connection is closed|Stream isn't writeable/i;

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
