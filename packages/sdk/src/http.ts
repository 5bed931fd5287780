import { ModelRunError } from "./errors.js";

export interface HttpOptions {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  maxRetries: number;
  /** Longest single wait before retrying; an answer asking for a longer Retry-After is thrown at once. */
  maxRetryDelayMs: number;
}

export interface RequestOptions {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A file sent as the body, as it is (an upload); never sent twice. */
  file?: FileBody;
  /** A multipart form sent as the body (its boundary set by fetch); never sent twice. */
  form?: FormData;
  headers?: Record<string, string>;
  /** Safe to send twice: reads, deletes, cancels, and creations carrying an Idempotency-Key. */
  idempotent: boolean;
  /** The answer is JSON Lines (a batch's results): answered as the array of its lines. */
  jsonl?: boolean;
  signal?: AbortSignal;
}

/** What the SDK uploads: bytes, a Blob or File, a web stream, or any async iterable of bytes (a Node stream). */
export type FileBody = Blob | ArrayBufferView | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** Whether a value is something `FileBody` takes (an input field the SDK uploads first). */
export function isFileBody(value: unknown): value is FileBody {
  return (
    (typeof Blob !== "undefined" && value instanceof Blob) ||
    ArrayBuffer.isView(value) ||
    (typeof ReadableStream !== "undefined" && value instanceof ReadableStream) ||
    (typeof value === "object" && value !== null && Symbol.asyncIterator in value)
  );
}

const RETRYABLE = new Set([429, 503]);

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Seconds (or an HTTP date) of a Retry-After header, as milliseconds. */
export function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * One API call. 429 and 503 answers are retried after Retry-After (or exponential backoff), and
 * network errors after backoff, but only for idempotent calls: a POST that creates something is
 * never sent twice unless it carries an Idempotency-Key.
 */
export async function call<T>(http: HttpOptions, o: RequestOptions): Promise<T> {
  const url = new URL(`${http.baseUrl.replace(/\/$/, "")}/api/v1${o.path}`);
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  for (let attempt = 0; ; attempt++) {
    const backoff = Math.min(http.maxRetryDelayMs, 250 * 2 ** attempt);
    let res: Response;
    try {
      res = await http.fetch(url, {
        method: o.method,
        signal: o.signal,
        headers: {
          authorization: `Bearer ${http.apiKey}`,
          accept: "application/json",
          ...(o.body !== undefined && { "content-type": "application/json" }),
          ...(o.file !== undefined && { "content-type": "application/octet-stream" }),
          ...o.headers,
        },
        body:
          o.form ??
          (o.file !== undefined
            ? (o.file as NonNullable<RequestInit["body"]>)
            : o.body === undefined
              ? undefined
              : JSON.stringify(o.body)),
        // A stream is sent as it is read (fetch asks to be told so).
        ...(o.file !== undefined &&
          !(o.file instanceof Blob) &&
          !ArrayBuffer.isView(o.file) && { duplex: "half" }),
      } as RequestInit);
    } catch (error) {
      if (o.signal?.aborted || !o.idempotent || attempt >= http.maxRetries) throw error;
      await sleep(backoff, o.signal);
      continue;
    }
    const retryAfter = retryAfterMs(res.headers.get("retry-after"));
    // A wait longer than the longest one allowed (a daily quota) is not waited out: the caller hears.
    if (
      RETRYABLE.has(res.status) &&
      o.idempotent &&
      attempt < http.maxRetries &&
      (retryAfter ?? 0) <= http.maxRetryDelayMs
    ) {
      await res.body?.cancel();
      await sleep(retryAfter ?? backoff, o.signal);
      continue;
    }
    const text = await res.text();
    if (res.ok && o.jsonl)
      return text
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown) as T;
    const body = text
      ? (JSON.parse(text) as {
          data?: T;
          error?: { code: string; message: string; details?: []; request_id?: string };
        })
      : {};
    if (!res.ok) {
      const e = body.error;
      throw new ModelRunError(
        res.status,
        e?.code ?? "HTTP_ERROR",
        e?.message ?? `HTTP ${res.status}`,
        e?.request_id ?? res.headers.get("x-request-id") ?? undefined,
        e?.details,
        retryAfter,
      );
    }
    return body as T;
  }
}
