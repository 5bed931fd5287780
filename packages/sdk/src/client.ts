import { RunFailedError } from "./errors.js";
import { call, isFileBody, type FileBody, type HttpOptions, type RequestOptions } from "./http.js";
import { streamRun, type StreamOptions } from "./stream.js";
import type {
  Account,
  CompletedRun,
  CreateRunBody,
  CreatedRun,
  CreatedWebhook,
  Delivery,
  DeliveryListQuery,
  EventType,
  FileList,
  FileListQuery,
  Weights,
  WeightsList,
  WeightsListQuery,
  Batch,
  BatchList,
  BatchListQuery,
  BatchResultLine,
  CreateBatchBody,
  FileObject,
  LedgerEntry,
  LedgerQuery,
  ModelDetail,
  ModelList,
  ModelListQuery,
  Run,
  RunEvent,
  RunList,
  RunListQuery,
  RunStatus,
  Usage,
  UsageQuery,
  WebhookEndpoint,
} from "./types.js";

export interface ClientOptions {
  /** svc_live_… or svc_test_… */
  apiKey: string;
  /** e.g. https://runs.example.com (without /api/v1) */
  baseUrl: string;
  /** Retries of idempotent calls on 429, 503 and network errors. Default 3. */
  maxRetries?: number;
  /** Longest single wait before a retry, in ms (a longer Retry-After, a daily quota, is thrown at once). Default 60 000. */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
}

export interface RunOptions {
  /** Makes creation safe to retry; the same key and body within 24 h return the same run. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Prefer: wait=N (1 to 60 s): the answer waits until the run has ended or N seconds have passed. */
  wait?: number;
  /** Cancel-After: the server cancels (and refunds) the run if it has not ended by then, e.g. "5m". */
  cancelAfter?: string;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up waiting after this long (ms). */
  timeoutMs?: number;
  /** On abort or timeout, also cancel the run on the server. Default true. */
  cancelOnAbort?: boolean;
  /** First poll interval; it grows by half up to maxPollIntervalMs. Defaults 250 and 5000 ms. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
}

const TERMINAL: RunStatus[] = ["COMPLETED", "FAILED", "CANCELED"];
type Data<T> = { data: T };

/** A typed client of the Model Run Service API. */
export class ModelRunClient {
  private readonly http: HttpOptions;

  constructor(options: ClientOptions) {
    if (!/^svc_(live|test)_/.test(options.apiKey))
      throw new TypeError("apiKey must be an svc_live_… or svc_test_… key");
    this.http = {
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      fetch: options.fetch ?? globalThis.fetch,
      maxRetries: options.maxRetries ?? 3,
      maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
    };
  }

  private async data<T>(o: RequestOptions): Promise<T> {
    return (await call<Data<T>>(this.http, o)).data;
  }

  readonly models = {
    list: (q: ModelListQuery = {}) =>
      this.data<ModelList>({ method: "GET", path: "/models", query: q, idempotent: true }),
    get: (modelId: string) =>
      this.data<ModelDetail>({
        method: "GET",
        path: `/models/${modelId.split("/").map(encodeURIComponent).join("/")}`,
        idempotent: true,
      }),
  };

  /** Input files: uploaded once, given to runs by id (runs.create uploads file values itself). */
  readonly files = {
    /** Uploads a file (its type is decided by its bytes: PNG, JPEG, WebP, GIF, MP4, WebM, WAV, MP3, OGG, FLAC). */
    create: (file: FileBody, signal?: AbortSignal) =>
      this.data<FileObject>({ method: "POST", path: "/files", file, idempotent: false, signal }),
    get: (fileId: string) =>
      this.data<FileObject>({
        method: "GET",
        path: `/files/${encodeURIComponent(fileId)}`,
        idempotent: true,
      }),
    list: (q: FileListQuery = {}) =>
      this.data<FileList>({ method: "GET", path: "/files", query: q, idempotent: true }),
    delete: (fileId: string) =>
      this.data<{ id: string; deleted: true }>({
        method: "DELETE",
        path: `/files/${encodeURIComponent(fileId)}`,
        idempotent: true,
      }),
  };

  /**
   * Batches: many runs of one model in one call, at the batch price, results as JSON Lines (read
   * here as arrays of result lines). Items may also be sent as JSON Lines with the raw API.
   */
  readonly batches = {
    create: (body: CreateBatchBody, signal?: AbortSignal) =>
      this.data<Batch>({ method: "POST", path: "/batches", body, idempotent: false, signal }),
    get: (batchId: string) =>
      this.data<Batch>({ method: "GET", path: `/batches/${encodeURIComponent(batchId)}`, idempotent: true }),
    list: (q: BatchListQuery = {}) =>
      this.data<BatchList>({ method: "GET", path: "/batches", query: q, idempotent: true }),
    cancel: (batchId: string) =>
      this.data<Batch>({
        method: "POST",
        path: `/batches/${encodeURIComponent(batchId)}/cancel`,
        idempotent: true,
      }),
    /** One line per ended item (which: "errors" for those that did not complete), in line order. */
    results: (batchId: string, which: "results" | "errors" = "results") =>
      call<BatchResultLine[]>(this.http, {
        method: "GET",
        path: `/batches/${encodeURIComponent(batchId)}/${which}`,
        idempotent: true,
        jsonl: true,
      }),
  };

  /** Personal weights (a LoRA's .safetensors): uploaded, or fetched by the service from an https URL. */
  readonly weights = {
    create: (
      weights:
        { file: Blob | ArrayBufferView; filename?: string; name?: string } | { url: string; name?: string },
      signal?: AbortSignal,
    ) => {
      if ("url" in weights)
        return this.data<Weights>({
          method: "POST",
          path: "/weights",
          body: weights,
          idempotent: false,
          signal,
        });
      const form = new FormData();
      if (weights.name) form.set("name", weights.name);
      const blob =
        weights.file instanceof Blob ? weights.file : new Blob([weights.file as unknown as ArrayBuffer]);
      form.set("file", blob, weights.filename ?? "weights.safetensors");
      return this.data<Weights>({ method: "POST", path: "/weights", form, idempotent: false, signal });
    },
    get: (weightsId: string) =>
      this.data<Weights>({
        method: "GET",
        path: `/weights/${encodeURIComponent(weightsId)}`,
        idempotent: true,
      }),
    list: (q: WeightsListQuery = {}) =>
      this.data<WeightsList>({ method: "GET", path: "/weights", query: q, idempotent: true }),
    delete: (weightsId: string) =>
      this.data<{ id: string; deleted: true }>({
        method: "DELETE",
        path: `/weights/${encodeURIComponent(weightsId)}`,
        idempotent: true,
      }),
  };

  /**
   * The input with each file value (a Blob, bytes, a stream) uploaded and replaced by its file id,
   * as Replicate's client does: the run is then made with ids only (and a retry reuses them).
   */
  private async uploadFiles(body: CreateRunBody, signal?: AbortSignal): Promise<CreateRunBody> {
    const entries = Object.entries(body.input);
    if (!entries.some(([, value]) => isFileBody(value))) return body;
    const input = Object.fromEntries(
      await Promise.all(
        entries.map(async ([name, value]) => [
          name,
          isFileBody(value) ? (await this.files.create(value, signal)).id : value,
        ]),
      ),
    );
    return { ...body, input };
  }

  readonly runs = {
    /**
     * Starts a run; file values of its input (Blob, bytes, stream) are uploaded first. Retried on
     * 429/503 only when it carries an idempotency key.
     */
    create: async (modelId: string, body: CreateRunBody, o: RunOptions = {}) =>
      this.data<CreatedRun>({
        method: "POST",
        path: `/models/${modelId.split("/").map(encodeURIComponent).join("/")}/run`,
        body: await this.uploadFiles(body, o.signal),
        headers: {
          ...(o.idempotencyKey && { "idempotency-key": o.idempotencyKey }),
          ...(o.wait && { prefer: `wait=${o.wait}` }),
          ...(o.cancelAfter && { "cancel-after": o.cancelAfter }),
        },
        idempotent: o.idempotencyKey !== undefined,
        signal: o.signal,
      }),
    /** Reads a run; with `wait` (1 to 60 s) the answer waits until it has ended or the time is up. */
    get: (runId: string, signal?: AbortSignal, o: { wait?: number } = {}) =>
      this.data<Run>({
        method: "GET",
        path: `/runs/${encodeURIComponent(runId)}`,
        headers: o.wait ? { prefer: `wait=${o.wait}` } : {},
        idempotent: true,
        signal,
      }),
    /**
     * The run's events (status with the run's view, progress) until it has ended, as an async
     * iterator; a dropped connection resumes where it stopped.
     */
    stream: (runId: string, o: StreamOptions = {}): AsyncGenerator<RunEvent> =>
      streamRun(this.http, runId, o),
    list: (q: RunListQuery = {}) =>
      this.data<RunList>({ method: "GET", path: "/runs", query: q, idempotent: true }),
    /** Cancels a queued or executing run; canceling twice is harmless. */
    cancel: (runId: string) =>
      this.data<{ run_id: string; status: "CANCELED"; canceled_at: string }>({
        method: "POST",
        path: `/runs/${encodeURIComponent(runId)}/cancel`,
        idempotent: true,
      }),
    /** Follows a run (its event stream, else polling) until it is COMPLETED, FAILED or CANCELED. */
    wait: (runId: string, o: WaitOptions = {}) => this.wait(runId, o),
  };

  /** The run's events until it has ended (see runs.stream). */
  stream(runId: string, o: StreamOptions = {}): AsyncGenerator<RunEvent> {
    return streamRun(this.http, runId, o);
  }

  /**
   * Creates a run and waits for it: resolves with the COMPLETED run, rejects with RunFailedError
   * for FAILED (and CANCELED) runs. The creation itself waits (Prefer: wait, 60 s by default), so a
   * fast run costs one call; a longer one is followed on its event stream, or by polling where the
   * stream is unavailable. Aborting the signal or passing timeoutMs stops waiting and, by default,
   * cancels the run on the server too.
   */
  async run(modelId: string, body: CreateRunBody, o: RunOptions & WaitOptions = {}): Promise<CompletedRun> {
    const signal = this.waitSignal(o);
    // A creation abandoned while it waits has a run the caller never learnt of: with a key of its
    // own, sending the creation again (without waiting) names that run, so it can be canceled.
    const idempotencyKey = o.idempotencyKey ?? (signal ? crypto.randomUUID() : undefined);
    // Files once: the creation sent again below names the same ones.
    body = await this.uploadFiles(body, signal);
    let created: CreatedRun;
    try {
      created = await this.runs.create(modelId, body, { wait: 60, ...o, idempotencyKey, signal });
    } catch (error) {
      if (signal?.aborted && idempotencyKey && o.cancelOnAbort !== false) {
        const abandoned = await this.runs.create(modelId, body, { idempotencyKey }).catch(() => undefined);
        if (abandoned) await this.runs.cancel(abandoned.run_id).catch(() => undefined);
      }
      throw error;
    }
    const run = TERMINAL.includes(created.status as RunStatus)
      ? (created as Run)
      : await this.wait(created.run_id, { ...o, signal });
    if (run.status !== "COMPLETED") throw new RunFailedError(run);
    return run;
  }

  private waitSignal(o: WaitOptions): AbortSignal | undefined {
    const signals = [
      o.signal,
      o.timeoutMs !== undefined ? AbortSignal.timeout(o.timeoutMs) : undefined,
    ].filter((s): s is AbortSignal => !!s);
    return signals.length ? AbortSignal.any(signals) : undefined;
  }

  private async wait(runId: string, o: WaitOptions): Promise<Run> {
    const signal = this.waitSignal(o);
    let interval = o.pollIntervalMs ?? 250;
    try {
      try {
        for await (const event of streamRun(this.http, runId, { signal }))
          if (event.type === "status" && TERMINAL.includes(event.run.status)) return event.run;
      } catch (error) {
        // A server without event streams, or one that keeps dropping them: poll instead.
        if (signal?.aborted) throw error;
      }
      for (;;) {
        const run = await this.runs.get(runId, signal);
        if (TERMINAL.includes(run.status)) return run;
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, interval);
          signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), {
            once: true,
          });
        });
        interval = Math.min(o.maxPollIntervalMs ?? 5_000, interval * 1.5);
      }
    } catch (error) {
      if (signal?.aborted && o.cancelOnAbort !== false) await this.runs.cancel(runId).catch(() => undefined);
      throw error;
    }
  }

  readonly webhooks = {
    create: (body: { url: string; events?: EventType[] }) =>
      call<{ data: CreatedWebhook; message: string }>(this.http, {
        method: "POST",
        path: "/webhooks",
        body,
        idempotent: false,
      }).then((r) => r.data),
    list: () =>
      this.data<{ webhooks: WebhookEndpoint[]; total: number }>({
        method: "GET",
        path: "/webhooks",
        idempotent: true,
      }),
    get: (id: string) =>
      this.data<WebhookEndpoint>({
        method: "GET",
        path: `/webhooks/${encodeURIComponent(id)}`,
        idempotent: true,
      }),
    /** Replaces the events the endpoint subscribes to. */
    update: (id: string, body: { events: EventType[] }) =>
      this.data<WebhookEndpoint>({
        method: "PATCH",
        path: `/webhooks/${encodeURIComponent(id)}`,
        body,
        idempotent: true,
      }),
    delete: (id: string) =>
      this.data<{ id: string; deleted: true }>({
        method: "DELETE",
        path: `/webhooks/${encodeURIComponent(id)}`,
        idempotent: true,
      }),
    enable: (id: string) =>
      this.data<WebhookEndpoint>({
        method: "POST",
        path: `/webhooks/${encodeURIComponent(id)}/enable`,
        idempotent: true,
      }),
    rotateSecret: (id: string) =>
      this.data<{ id: string; signing_secret: string; previous_secret_expires_at: string }>({
        method: "POST",
        path: `/webhooks/${encodeURIComponent(id)}/rotate-secret`,
        idempotent: false,
      }),
    deliveries: (id: string, q: DeliveryListQuery = {}) =>
      this.data<{ deliveries: Delivery[]; next_cursor: string | null }>({
        method: "GET",
        path: `/webhooks/${encodeURIComponent(id)}/deliveries`,
        query: q,
        idempotent: true,
      }),
    redeliver: (id: string, deliveryId: string) =>
      this.data<{ delivery_id: string; redelivery_of: string }>({
        method: "POST",
        path: `/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
        idempotent: false,
      }),
    test: (id: string) =>
      this.data<{ delivery_id: string; event: "webhook.test" }>({
        method: "POST",
        path: `/webhooks/${encodeURIComponent(id)}/test`,
        idempotent: false,
      }),
    defaultSecret: () =>
      this.data<{ signing_secret: string }>({
        method: "GET",
        path: "/webhooks/default/secret",
        idempotent: true,
      }).then((d) => d.signing_secret),
  };

  /** The account's tokens (one pot for both modes), its ledger and its daily usage. */
  readonly account = {
    get: () => this.data<Account>({ method: "GET", path: "/account", idempotent: true }),
    ledger: (q: LedgerQuery = {}) =>
      this.data<{ entries: LedgerEntry[]; next_cursor: string | null }>({
        method: "GET",
        path: "/account/ledger",
        query: q,
        idempotent: true,
      }),
    usage: (q: UsageQuery = {}) =>
      this.data<Usage>({ method: "GET", path: "/account/usage", query: q, idempotent: true }),
  };
}
