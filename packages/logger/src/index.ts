import winston from "winston";

export type Logger = winston.Logger;

// API keys, signing secrets and output tokens (an output URL is its own credential: whoever has
// /files/out_<token>/… can fetch it) must never reach a log line, whatever field they hide in.
const SECRET_PATTERN = /\b(svc_(?:live|test)_|whsec_)[A-Za-z0-9_+/=-]+|\b(out_)[A-Za-z0-9]{22}\b/g;

export function redactSecrets(text: string): string {
  return text.replace(
    SECRET_PATTERN,
    (_match, secret?: string, output?: string) => `${secret ?? output}[redacted]`,
  );
}

/**
 * An Error as plain data: its message, stack and cause are not enumerable, so copying its own keys
 * (as the redaction does for objects) would log `{}`. Own fields such as `code` come along.
 */
function errorFields(error: Error): Record<string, unknown> {
  return {
    ...error,
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(error.cause !== undefined && { cause: error.cause }),
    ...(error instanceof AggregateError && { errors: error.errors }),
  };
}

function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  const fields = value instanceof Error ? errorFields(value) : value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] = /^(authorization|signing_secret|secret|password)$/i.test(k)
      ? "[redacted]"
      : redactDeep(v, depth + 1);
  }
  return out;
}

const redact = winston.format((info) => {
  for (const key of Object.keys(info)) {
    (info as Record<string, unknown>)[key] = redactDeep(info[key]);
  }
  return info;
});

export interface LoggerOptions {
  service: string;
  level: string;
  /** Where lines go; standard output by default. Tests pass a stream to read them back. */
  stream?: NodeJS.WritableStream;
}

/** JSON lines with timestamp, level, service, message and any context (request_id, run_id, job_id). */
export function createLogger({ service, level, stream }: LoggerOptions): Logger {
  return winston.createLogger({
    level: level === "silent" ? "error" : level,
    silent: level === "silent",
    defaultMeta: { service },
    format: winston.format.combine(
      winston.format.errors({ stack: true }),
      redact(),
      winston.format.timestamp(),
      winston.format.json(),
    ),
    transports: [stream ? new winston.transports.Stream({ stream }) : new winston.transports.Console()],
  });
}

/**
 * An error nobody handled leaves the process in a state nobody knows: log it (message, stack,
 * cause) and exit non-zero, so that the supervisor restarts a clean process. The exit waits a
 * moment because winston hands lines to its transports on a later tick.
 */
export function exitOnFatalErrors(logger: Logger, exit: (code: number) => void = process.exit): void {
  let exiting = false;
  const fatal = (message: string, meta: Record<string, unknown>) => {
    logger.error(message, meta);
    if (exiting) return;
    exiting = true;
    setTimeout(() => exit(1), 100);
  };
  process.on("uncaughtException", (error, origin) =>
    fatal("fatal: uncaught exception; exiting", { origin, error }),
  );
  process.on("unhandledRejection", (reason) =>
    fatal("fatal: unhandled promise rejection; exiting", { error: reason }),
  );
}
