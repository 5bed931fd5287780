import { once } from "node:events";
import { createServer } from "node:http";
import { changes } from "./changes.js";

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the processes. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Headers of the exports received (a collector's token, say). */
  headers: Record<string, string | string[] | undefined>[];
  waitFor(match: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
const valueOf = (v: AnyValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** A real OTLP/HTTP (JSON) trace receiver on 127.0.0.1, as a collector would be. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const headers: OtlpReceiver["headers"] = [];
  const received = changes();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (
        req.method !== "POST" ||
        req.url !== "/v1/traces" ||
        !req.headers["content-type"]?.includes("json")
      ) {
        res.writeHead(415).end();
        return;
      }
      headers.push(req.headers);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: AnyValue }[] };
          scopeSpans: {
            spans: (Omit<ReceivedSpan, "service" | "attributes"> & {
              attributes?: { key: string; value: AnyValue }[];
            })[];
          }[];
        }[];
      };
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource.attributes)["service.name"]);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId && { parentSpanId: s.parentSpanId }),
              name: s.name,
              attributes: attributesOf(s.attributes),
            });
      }
      received.notify();
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    headers,
    waitFor: (match, timeoutMs = 20_000) =>
      received.until(
        () => (match(spans) ? spans : undefined),
        timeoutMs,
        () => `spans received: ${JSON.stringify(spans.map((s) => `${s.service} ${s.name} ${s.traceId}`))}`,
      ),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
