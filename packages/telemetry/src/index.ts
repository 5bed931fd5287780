// Traces (OpenTelemetry): one trace per run across processes. The API's request span is the root;
// its W3C traceparent is kept on the run row, so whichever worker starts, executes and settles the
// run (and delivers its webhooks) continues the same trace, whatever queue or scheduler the run
// went through. Exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; otherwise nothing
// is made at all (callers check `enabled` before any tracing work on a hot path).
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { createRequire } from "node:module";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

// The SDK and its exporter are loaded only when tracing is on: a process that does not trace
// never holds them (tens of MB, and their loading at every start). Required, not imported: the
// process's tracing is decided synchronously, as it starts.
const load = createRequire(import.meta.url);
type Sdk = typeof import("@opentelemetry/sdk-trace-base");
type Exporter = typeof import("@opentelemetry/exporter-trace-otlp-http");
type Resources = typeof import("@opentelemetry/resources");
type Conventions = typeof import("@opentelemetry/semantic-conventions");

export { SpanKind, SpanStatusCode, type Attributes, type Context, type Span };

export interface TracingSettings {
  /** Base URL of an OTLP/HTTP collector (spans go to <it>/v1/traces); unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  /** "key=value,key2=value2": headers of every export (a collector's token). */
  OTEL_EXPORTER_OTLP_HEADERS?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
  /** Share of new traces kept (0..1); a request that arrives with a sampled traceparent is kept. */
  OTEL_TRACES_SAMPLER_ARG: number;
  /** How long spans wait to be exported together (ms). */
  OTEL_BSP_SCHEDULE_DELAY: number;
}

export interface Tracing {
  enabled: boolean;
  tracer: Tracer;
  /** The span's context as a W3C traceparent, to carry across processes; undefined if not sampled. */
  traceparentOf(span: Span): string | undefined;
  /** A context whose parent is `traceparent` (the root context without one, or with a bad one). */
  contextOf(traceparent: string | null | undefined): Context;
  /** A context whose parent is the span. */
  within(span: Span): Context;
  /** Exports what is still buffered; a process calls it last. */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();

const headersOf = (text: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (text ?? "")
      .split(",")
      .map((pair) => pair.split("=").map((s) => decodeURIComponent(s.trim())))
      .filter((kv): kv is [string, string] => kv.length === 2 && !!kv[0]),
  );

const common = {
  traceparentOf(span: Span) {
    if (!span.isRecording()) return undefined;
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
    return carrier.traceparent;
  },
  contextOf(traceparent: string | null | undefined) {
    return traceparent
      ? propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter)
      : ROOT_CONTEXT;
  },
  within: (span: Span) => trace.setSpan(ROOT_CONTEXT, span),
};

/** Tracing for one process (`service`: "api" or "worker"), on or off by its settings. */
export function startTracing(settings: TracingSettings, service: string, version = "0.1.0"): Tracing {
  if (!settings.OTEL_EXPORTER_OTLP_ENDPOINT)
    return {
      ...common,
      enabled: false,
      tracer: trace.getTracer("model-run-service"), // the API's no-op tracer: no provider registered
      shutdown: async () => {},
    };
  const { OTLPTraceExporter } = load("@opentelemetry/exporter-trace-otlp-http") as Exporter;
  const { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = load(
    "@opentelemetry/sdk-trace-base",
  ) as Sdk;
  const { resourceFromAttributes } = load("@opentelemetry/resources") as Resources;
  const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = load(
    "@opentelemetry/semantic-conventions",
  ) as Conventions;
  const exporter = new OTLPTraceExporter({
    url: `${settings.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`,
    headers: headersOf(settings.OTEL_EXPORTER_OTLP_HEADERS),
  });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: settings.OTEL_SERVICE_NAME ?? `model-run-${service}`,
      [ATTR_SERVICE_VERSION]: version,
    }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.OTEL_TRACES_SAMPLER_ARG) }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        scheduledDelayMillis: settings.OTEL_BSP_SCHEDULE_DELAY,
        maxQueueSize: 8_192,
        maxExportBatchSize: 1_024,
      }),
    ],
  });
  return {
    ...common,
    enabled: true,
    tracer: provider.getTracer("model-run-service", version),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Runs `fn` in a span (child of `parent`), which ends with it: an error thrown marks the span
 * failed (and is rethrown). Off, `fn` runs without a span.
 */
export async function inSpan<T>(
  tracing: Tracing,
  name: string,
  parent: Context,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracing.enabled) return fn(undefined);
  const span = tracing.tracer.startSpan(name, { attributes }, parent);
  try {
    return await fn(span);
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

/** Tracing that is off (tests and tools that never export). */
export const NO_TRACING: Tracing = startTracing(
  { OTEL_TRACES_SAMPLER_ARG: 1, OTEL_BSP_SCHEDULE_DELAY: 5_000 },
  "none",
);
