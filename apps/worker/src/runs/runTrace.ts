// A run's spans in the trace of the request that made it (OpenTelemetry, when tracing is on).
import { inSpan, SpanKind, type Tracing } from "@svc/telemetry";

export type RunTrace = ReturnType<typeof runTrace>;

/**
 * The run's spans in the trace of the request that made it (when tracing is on and it was
 * sampled): run.execute, with run.start (from before the start statement), model.execute and
 * run.settle inside.
 */
export function runTrace(
  tracing: Tracing,
  run: { id: string; modelId: string; traceParent?: string | null },
  startBegan: number,
  attempt: number,
) {
  if (!tracing.enabled || !run.traceParent) return undefined;
  const root = tracing.tracer.startSpan(
    "run.execute",
    {
      kind: SpanKind.CONSUMER,
      startTime: startBegan,
      attributes: { "svc.run_id": run.id, "svc.model_id": run.modelId, "svc.attempt": attempt },
    },
    tracing.contextOf(run.traceParent),
  );
  const inside = tracing.within(root);
  tracing.tracer.startSpan("run.start", { startTime: startBegan }, inside).end();
  return {
    step: <T>(name: string, fn: () => Promise<T>) => inSpan(tracing, name, inside, {}, fn),
    end(outcome: string) {
      root.setAttribute("svc.outcome", outcome);
      root.end();
    },
  };
}
