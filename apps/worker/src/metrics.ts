import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Queue } from "bullmq";

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/** The worker's Prometheus series. Queue depth is read from Redis at each scrape. */
export function createWorkerMetrics(queues: Record<string, Queue>) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    runsFinished: new Counter({
      name: "svc_runs_finished_total",
      help: "Runs finished by this worker, by model and outcome (completed, failed, canceled)",
      labelNames: ["model", "outcome"] as const,
      registers: [registry],
    }),
    runQueueWait: new Histogram({
      name: "svc_run_queue_wait_seconds",
      help: "Time from run creation to the start of its execution",
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
      registers: [registry],
    }),
    tokensCharged: new Counter({
      name: "svc_tokens_charged_total",
      help: "Tokens charged at settlement, by model",
      labelNames: ["model"] as const,
      registers: [registry],
    }),
    deliveryAttempts: new Counter({
      name: "svc_webhook_attempts_total",
      help: "Webhook delivery attempts by outcome (succeeded, retry, failed, already_final)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    deliveryLatency: new Histogram({
      name: "svc_webhook_attempt_duration_seconds",
      help: "Duration of one webhook delivery attempt",
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: "svc_queue_jobs",
      help: "Jobs in each queue by state",
      labelNames: ["queue", "state"] as const,
      registers: [registry],
      async collect() {
        for (const [name, queue] of Object.entries(queues)) {
          const counts = await queue.getJobCounts("waiting", "active", "delayed", "failed").catch(() => null);
          for (const [state, n] of Object.entries(counts ?? {})) this.set({ queue: name, state }, n);
        }
      },
    }),
  };
}

export async function startMetricsServer(
  metrics: WorkerMetrics,
  host: string,
  port: number,
): Promise<Server> {
  const server = createServer(async (req, res) => {
    if (req.method !== "GET" || req.url !== "/metrics") return res.writeHead(404).end();
    res
      .writeHead(200, { "content-type": metrics.registry.contentType })
      .end(await metrics.registry.metrics());
  });
  server.listen(port, host);
  await once(server, "listening");
  return server;
}
