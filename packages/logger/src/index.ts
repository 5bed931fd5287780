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
  // ioredis errors carry the failed command with its arguments (jobs' data, runs' inputs): its
  // name says enough.
  const command = (error as { command?: { name?: unknown } }).command;
  return {
    ...error,
    ...(command && typeof command === "object" && { command: { name: command.name } }),
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
  // Raw bytes (an HTTP parser error's packet holds the whole request, Authorization included)
  // would be written as one field per byte, out of the string redaction's reach.
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
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

export interface RepeatLimit {
  /** Lines of one kind (level, message, error message with its numbers blanked) per window. */
  lines: number;
  windowMs: number;
}

/**
 * Warnings and errors that repeat (a Redis that answers every call with an error, a database
 * away) are logged `lines` times per window; the next line of that kind after the window says
 * how many were left out (`repeated`). Without it a hot error path writes gigabytes.
 */
const limitRepeats = ({ lines, windowMs }: RepeatLimit) => {
  const kinds = new Map<string, { since: number; count: number; dropped: number }>();
  return winston.format((info) => {
    if (info.level !== "warn" && info.level !== "error") return info;
    const error = info.error as { message?: unknown } | undefined;
    const detail = typeof error?.message === "string" ? error.message : "";
    const kind = `${info.level}\0${String(info.message)}\0${detail.slice(0, 200).replace(/\d+/g, "#")}`;
    const now = Date.now();
    let seen = kinds.get(kind);
    if (!seen || now - seen.since >= windowMs) {
      if (kinds.size >= 1_000) for (const [k, v] of kinds) if (now - v.since >= windowMs) kinds.delete(k);
      const dropped = seen?.dropped ?? 0;
      seen = { since: now, count: 0, dropped: 0 };
      kinds.set(kind, seen);
      if (dropped) info.repeated = dropped;
    }
    if (++seen.count > lines) {
      seen.dropped++;
      return false;
    }
    return info;
  })();
};

export interface LoggerOptions {
  service: string;
  level: string;
  /** Where lines go; standard output by default. Tests pass a stream to read them back. */
  stream?: NodeJS.WritableStream;
  /** Default: 10 lines of a kind per 30 s. */
  repeatLimit?: RepeatLimit;
}

/** JSON lines with timestamp, level, service, message and any context (request_id, run_id, job_id). */
export function createLogger({
  service,
  level,
  stream,
  repeatLimit = { lines: 10, windowMs: 30_000 },
}: LoggerOptions): Logger {
  const logger = winston.createLogger({
    level: level === "silent" ? "error" : level,
    silent: level === "silent",
    defaultMeta: { service },
    format: winston.format.combine(
      winston.format.errors({ stack: true }),
      limitRepeats(repeatLimit),
      redact(),
      winston.format.timestamp(),
      winston.format.json(),
    ),
    transports: [stream ? new winston.transports.Stream({ stream }) : new winston.transports.Console()],
  });
  // winston runs every call through the whole format chain (redaction, JSON) and only then lets
  // the transport drop a level it does not log: each debug line on the run path cost a JSON line
  // at info. A level the logger does not log is a call that does nothing (children inherit it).
  for (const name of Object.keys(logger.levels))
    if (!logger.isLevelEnabled(name)) Object.assign(logger, { [name]: () => logger });
  return logger;
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
