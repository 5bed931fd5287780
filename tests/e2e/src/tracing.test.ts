import { randomBytes } from "node:crypto";
import {
  startHttpsReceiver,
  startOtlpReceiver,
  waitFor,
  type HttpsReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// Traces across processes: the built API and worker export to a real OTLP/HTTP receiver, and one
// run's spans (the request, its start, the model's execution, the settlement, each webhook
// attempt) share one trace id, whichever queue the run went through.
describe("traces", () => {
  let service: E2EService;
  let otlp: OtlpReceiver;
  let hooks: HttpsReceiver;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    hooks = await startHttpsReceiver();
    service = await startService({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
    await service.startApi();
    await service.startWorker();
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([otlp?.close(), hooks?.close()]);
  });

  const WORKER_SPANS = ["run.execute", "run.start", "model.execute", "run.settle", "webhook.attempt"];
  /** The run's spans, once the API's and every worker span of it have arrived. */
  const traceOf = async (runId: string) => {
    let trace: ReceivedSpan[] = [];
    await otlp.waitFor((spans) => {
      const execute = spans.find((s) => s.name === "run.execute" && s.attributes["svc.run_id"] === runId);
      trace = execute ? spans.filter((s) => s.traceId === execute.traceId) : [];
      const names = new Set(trace.map((s) => s.name));
      return trace.some((s) => s.service === "model-run-api") && WORKER_SPANS.every((n) => names.has(n));
    });
    return trace;
  };

  it.each(["acme/echo", "test/instant"])(
    "when a run of %s is made, then the request, the worker's spans and the webhook attempt share one trace",
    async (model) => {
      const { client } = await service.account(100);
      const { run_id } = await client.runs.create(model, {
        input: { prompt: "traced" },
        webhook_url: hooks.url(`/${hookPath(model)}`),
      });
      const trace = await traceOf(run_id);
      const request = trace.find((s) => s.service === "model-run-api")!;
      expect(request.name).toBe("POST /api/v1/models/*modelId/run");
      expect(request.attributes["http.response.status_code"]).toBe(201);
      const byName = (name: string) =>
        trace.find((s) => s.name === name && s.service === "model-run-worker")!;
      // The worker's run span hangs off the request; its steps off it; the attempt off the request's trace.
      expect(byName("run.execute").parentSpanId).toBe(request.spanId);
      for (const step of ["run.start", "model.execute", "run.settle"])
        expect(byName(step).parentSpanId).toBe(byName("run.execute").spanId);
      // The receiver can join the trace too: the attempt's traceparent came with the webhook.
      const delivered = await waitFor(async () =>
        hooks.requests.find((r) => r.path === `/${hookPath(model)}`),
      );
      expect(String(delivered.headers.traceparent)).toContain(request.traceId);
      expect(otlp.headers.every((h) => h.authorization === "Bearer collector-token")).toBe(true);
    },
  );

  it("when a request brings its own traceparent, then the run's spans continue the caller's trace", async () => {
    const { liveKey } = await service.account(100);
    const traceId = randomBytes(16).toString("hex");
    const parentId = randomBytes(8).toString("hex");
    const res = await fetch(`${service.base}/api/v1/models/acme/echo/run`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${liveKey}`,
        "content-type": "application/json",
        traceparent: `00-${traceId}-${parentId}-01`,
      },
      body: JSON.stringify({ input: { prompt: "joined" } }),
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { run_id: string } };
    // The two processes export on their own schedules: the worker's span may arrive first.
    const spans = await otlp.waitFor(
      (all) =>
        all.some((s) => s.name === "run.execute" && s.attributes["svc.run_id"] === data.run_id) &&
        all.some((s) => s.service === "model-run-api" && s.traceId === traceId),
    );
    const execute = spans.find(
      (s) => s.name === "run.execute" && s.attributes["svc.run_id"] === data.run_id,
    )!;
    expect(execute.traceId).toBe(traceId);
    const request = spans.find((s) => s.service === "model-run-api" && s.traceId === traceId)!;
    expect(request.parentSpanId).toBe(parentId);
  });
});

const hookPath = (model: string) => `hook-${model.replace("/", "-")}`;
