import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Queue } from "bullmq";
import type { PoolStats, Scheduler, WarmStats } from "@svc/queue";

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;

/**
 * Every pool's figures, read from Redis once per scrape for all of the pool gauges (they are
 * cluster-wide: any worker's scrape shows the same, so dashboards take max() across workers).
 */
function poolFigures(scheduler: Scheduler) {
  let last:
    | {
        at: number;
        value: Promise<
          { pool: string; stats: PoolStats; health: Record<string, string>; warm: WarmStats[] }[]
        >;
      }
    | undefined;
  return () => {
    if (!last || Date.now() - last.at > 500) {
      const value = scheduler.pools().then((pools) =>
        Promise.all(
          pools.map(async (pool) => ({
            pool,
            stats: await scheduler.stats(pool),
            health: await scheduler.health(pool),
            warm: (await scheduler.warmStats(pool)).servers,
          })),
        ),
      );
      last = { at: Date.now(), value };
      value.catch(() => (last = undefined));
    }
    return last.value.catch(() => []);
  };
}

/** The time loads cost a server: what its misses took beyond the same number of hits (0 without hits). */
export const loadSeconds = (w: WarmStats) =>
  w.hits ? Math.max(0, w.missMs - (w.misses * w.hitMs) / w.hits) / 1000 : 0;

/**
 * The pool gauges: cluster-wide figures kept in Redis (capacity, leases, waiting runs, servers'
 * health, warm routing's counts), each scrape setting them as the scheduler has them.
 */
function poolGauges(registry: Registry, scheduler: Scheduler) {
  const figures = poolFigures(scheduler);
  const poolGauge = (name: string, help: string, value: (stats: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["model"] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const { pool, stats } of await figures()) this.set({ model: pool }, value(stats));
      },
    });
  // Cluster-wide counts kept in Redis: gauges, each scrape setting them as the scheduler has them.
  const warmGauge = (name: string, help: string, value: (w: WarmStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["model", "server"] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const { pool, warm } of await figures())
          for (const w of warm) this.set({ model: pool, server: w.server }, value(w));
      },
    });
  return {
    weightsHits: warmGauge(
      "svc_weights_cache_hits",
      "Runs with LoRAs sent to a server that had them all loaded (warm routing's hits)",
      (w) => w.hits,
    ),
    weightsMisses: warmGauge(
      "svc_weights_cache_misses",
      "Runs with LoRAs sent to a server that had to load one or more of them",
      (w) => w.misses,
    ),
    weightsLoads: warmGauge("svc_weights_loads", "LoRAs a server had to load", (w) => w.loads),
    weightsLoadSeconds: warmGauge(
      "svc_weights_load_seconds",
      "Time a server spent loading LoRAs, estimated: the misses' time on the server less as many hits' mean time",
      (w) => loadSeconds(w),
    ),
    poolCapacity: poolGauge(
      "svc_pool_capacity",
      "Runs a model can execute at once now (healthy servers x concurrency, or render threads)",
      (s) => s.capacity,
    ),
    poolLeased: poolGauge("svc_pool_leased", "Slots of a model's pool leased to runs now", (s) => s.leased),
    poolQueued: poolGauge("svc_pool_queued", "Runs waiting for a model's capacity", (s) => s.queued),
    poolOldest: poolGauge(
      "svc_pool_oldest_queued_seconds",
      "Age of the run that has waited longest for a model's capacity (0 when none waits)",
      (s) => (s.oldestQueuedAt ? Math.max(0, (Date.now() - s.oldestQueuedAt.getTime()) / 1000) : 0),
    ),
    serverUp: new Gauge({
      name: "svc_model_server_up",
      help: "1 while a model server passes its health check (its slots count), 0 while it does not",
      labelNames: ["model", "server"] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const { pool, health } of await figures())
          for (const [server, state] of Object.entries(health))
            this.set({ model: pool, server }, state === "up" ? 1 : 0); // else down[<TAB>its state]
      },
    }),
  };
}

/** The worker's Prometheus series. Queue depths and pools are read from Redis at each scrape. */
export function createWorkerMetrics(
  queues: Record<string, Queue>,
  scheduler: Scheduler,
  /** Open batches' items per model (from Postgres, at each scrape). */
  batchItems: () => Promise<
    { modelId: string; pending: number; running: number; ended: number }[]
  > = async () => [],
) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    ...poolGauges(registry, scheduler),
    batchItems: new Gauge({
      name: "svc_batch_items",
      help: "Items of open batches by model and state: pending (not admitted yet: the batch lane's backlog, for autoscaling), running, ended",
      labelNames: ["model", "state"] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const m of await batchItems().catch(() => []))
          for (const state of ["pending", "running", "ended"] as const)
            this.set({ model: m.modelId, state }, m[state]);
      },
    }),
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
    dispatchLatency: new Histogram({
      name: "svc_dispatch_latency_seconds",
      help: "Time from a slot leased to a run to its execution starting on this worker",
      labelNames: ["model"] as const,
      buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
    slotHandover: new Histogram({
      name: "svc_slot_handover_seconds",
      help: "Time from a slot's release on this worker to the next waiting run's prediction accepted by the slot's server",
      labelNames: ["model"] as const,
      buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
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

/**
 * The worker's own port: GET /metrics (Prometheus), /healthz (the process answers: a liveness
 * probe) and /readyz (it takes work: 503 once a shutdown's drain has begun).
 */
export async function startMetricsServer(
  metrics: WorkerMetrics,
  host: string,
  port: number,
  draining: () => boolean,
): Promise<Server> {
  const server = createServer(async (req, res) => {
    if (req.method !== "GET") return res.writeHead(405).end();
    if (req.url === "/healthz") return res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (req.url === "/readyz")
      return draining()
        ? res.writeHead(503, { "content-type": "text/plain" }).end("draining")
        : res.writeHead(200, { "content-type": "text/plain" }).end("ready");
    if (req.url !== "/metrics") return res.writeHead(404).end();
    res
      .writeHead(200, { "content-type": metrics.registry.contentType })
      .end(await metrics.registry.metrics());
  });
  server.listen(port, host);
  await once(server, "listening");
  return server;
}
