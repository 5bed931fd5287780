import { ModelRunError } from "./errors.js";
import { sleep, type HttpOptions } from "./http.js";
import type { Run, RunEvent, RunProgress } from "./types.js";

/** One message of a text/event-stream (WHATWG HTML, "event stream interpretation"). */
interface SseMessage {
  id?: string;
  event: string;
  data: string;
  retry?: number;
}

/** Splits a text/event-stream body into messages; comments (heartbeats) are skipped. */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let message: { id?: string; event?: string; data: string[]; retry?: number } = { data: [] };
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
        if (line === "") {
          if (message.data.length || message.event)
            yield { id: message.id, event: message.event ?? "message", data: message.data.join("\n") };
          else if (message.retry !== undefined) yield { event: "", data: "", retry: message.retry };
          message = { data: [] };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") message.data.push(value);
        else if (field === "event") message.event = value;
        else if (field === "id") message.id = value;
        else if (field === "retry" && /^\d+$/.test(value)) message.retry = Number(value);
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Resume after this event (the id of the last event received). */
  lastEventId?: string;
  /** Reconnections in a row without receiving anything before giving up. Default 5. */
  maxReconnects?: number;
}

const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELED"]);

/**
 * The run's events until it has ended. A dropped connection is resumed from the last event id
 * (after the server's retry delay), so no event is missed or repeated.
 */
export async function* streamRun(
  http: HttpOptions,
  runId: string,
  o: StreamOptions = {},
): AsyncGenerator<RunEvent> {
  const url = `${http.baseUrl.replace(/\/$/, "")}/api/v1/runs/${encodeURIComponent(runId)}/events`;
  let lastEventId = o.lastEventId;
  let retryMs = 1_000;
  let failures = 0;
  for (;;) {
    o.signal?.throwIfAborted();
    let res: Response;
    try {
      res = await http.fetch(url, {
        signal: o.signal,
        headers: {
          authorization: `Bearer ${http.apiKey}`,
          accept: "text/event-stream",
          ...(lastEventId && { "last-event-id": lastEventId }),
        },
      });
    } catch (error) {
      if (o.signal?.aborted || ++failures > (o.maxReconnects ?? 5)) throw error;
      await sleep(retryMs, o.signal);
      continue;
    }
    if (!res.ok || !res.body) {
      const body = (await res.json().catch(() => ({}))) as {
        error?: { code: string; message: string; request_id?: string };
      };
      if ((res.status === 429 || res.status === 503) && ++failures <= (o.maxReconnects ?? 5)) {
        await sleep(retryMs, o.signal);
        continue;
      }
      throw new ModelRunError(
        res.status,
        body.error?.code ?? "HTTP_ERROR",
        body.error?.message ?? `HTTP ${res.status}`,
        body.error?.request_id ?? res.headers.get("x-request-id") ?? undefined,
      );
    }
    try {
      for await (const message of parseSse(res.body)) {
        if (message.retry !== undefined) retryMs = message.retry;
        if (message.event !== "status" && message.event !== "progress") continue;
        failures = 0;
        if (message.id) lastEventId = message.id;
        const data = JSON.parse(message.data) as Run | RunProgress;
        const event = (
          message.event === "status"
            ? { type: "status", id: message.id, run: data }
            : { type: "progress", id: message.id, progress: data }
        ) as RunEvent;
        yield event;
        if (event.type === "status" && TERMINAL.has(event.run.status)) return;
      }
    } catch (error) {
      if (o.signal?.aborted) throw error;
    }
    // The connection ended before the terminal event: resume.
    if (++failures > (o.maxReconnects ?? 5))
      throw new Error(`the event stream of run ${runId} keeps closing`);
    await sleep(retryMs, o.signal);
  }
}
