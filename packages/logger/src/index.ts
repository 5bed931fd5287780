import winston from "winston";

export type Logger = winston.Logger;

// API keys and signing secrets must never reach a log line, whatever field they hide in.
const SECRET_PATTERN = /\b(svc_(?:live|test)_|whsec_)[A-Za-z0-9_+/=-]+/g;

export function redactSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, "$1[redacted]");
}

function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
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
