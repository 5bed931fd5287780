import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export type ApiMetrics = ReturnType<typeof createApiMetrics>;

/**
 * The API's Prometheus series, on a registry of its own (tests create several apps per process).
 * `held` counts this process's event streams and waiting requests (HELD_PER_PROCESS caps them).
 */
export function createApiMetrics(held: { count(): number }) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: "svc_http_request_duration_seconds",
      help: "HTTP request latency by method, route and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    runsCreated: new Counter({
      name: "svc_runs_created_total",
      help: "Runs created, by model and mode",
      labelNames: ["model", "mode"] as const,
      registers: [registry],
    }),
    heldConnections: new Gauge({
      name: "svc_held_connections",
      help: "Event streams and waiting requests (Prefer: wait) this API process holds now",
      registers: [registry],
      collect() {
        this.set(held.count());
      },
    }),
    tokensReserved: new Counter({
      name: "svc_tokens_reserved_total",
      help: "Tokens reserved at run creation (live mode), by model",
      labelNames: ["model"] as const,
      registers: [registry],
    }),
  };
}
