import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { ledgerTotals } from "@svc/db";
import type { ModelRunClient } from "@svc/sdk";
import {
  startHttpsReceiver,
  startRedisCluster,
  startRedisServer,
  startRedisSentinel,
  startRedisTls,
  startTcpProxy,
  spawnApp,
  stopApps,
  waitFor,
  type HttpsReceiver,
  type RedisClusterHandle,
  type RedisSentinelHandle,
  type RedisTlsHandle,
  type SpawnedApp,
} from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// The built API and workers on Redis as operators run it beyond one node: real redis-server
// processes of the test's own as a 3-master Cluster, as a master with a replica under three
// Sentinels (failed over mid-run), over mutual TLS, and misconfigured under a running worker.

const hashTagged = () => `{t_${randomBytes(6).toString("hex")}}`;

/** Every run of `ids` COMPLETED, each charged exactly once, each webhook delivered. */
async function expectSettledOnce(service: E2EService, accountId: string, ids: string[], tokens: number) {
  const { db } = service.database;
  await waitFor(
    async () =>
      (await db.run.count({ where: { id: { in: ids }, status: "COMPLETED" } })) === ids.length ? true : null,
    { what: `${ids.length} runs to complete`, timeoutMs: 60_000 },
  );
  const runs = await db.run.findMany({ where: { id: { in: ids } } });
  expect(runs.every((r) => (r.tokensCharged ?? 0) > 0)).toBe(true);
  const charged = runs.reduce((sum, r) => sum + (r.tokensCharged ?? 0), 0);
  // The account row and its ledger agree, and hold exactly one charge per run (no refund lost).
  const totals = await ledgerTotals(db, accountId);
  expect(totals.cached).toEqual({ balance: tokens - charged, reserved: 0 });
  expect(totals.ledger).toEqual(totals.cached);
  await waitFor(
    async () => {
      const deliveries = await db.delivery.findMany({ where: { runId: { in: ids } } });
      return deliveries.length === ids.length && deliveries.every((d) => d.status === "succeeded")
        ? true
        : null;
    },
    { what: "every run's webhook to be delivered", timeoutMs: 60_000 },
  );
}

const create = async (client: ModelRunClient, model: string, n: number, webhookUrl: string) =>
  (
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        client.runs.create(model, { input: { prompt: `run ${i}` }, webhook_url: webhookUrl }),
      ),
    )
  ).map((r) => r.run_id);

const WORKER_ENV = {
  WORKER_CONCURRENCY: "8",
  SWEEP_INTERVAL_MS: "300",
  SWEEP_QUEUED_AFTER_MS: "1000",
  WEBHOOK_BACKOFF_BASE_MS: "100",
  RUN_LOCK_MS: "2000",
};

/** The service (an API and `workers` workers) on a Redis of the test's own, and a webhook receiver. */
interface OnRedis<R> {
  redis: R;
  service: E2EService;
  receiver: HttpsReceiver;
  workers: SpawnedApp[];
  stop(): Promise<void>;
}

async function serviceOn<R extends { stop(): Promise<void> }>(
  start: () => Promise<R>,
  envOf: (redis: R) => Record<string, string>,
  workers: number,
): Promise<OnRedis<R>> {
  const redis = await start();
  const service = await startService(envOf(redis));
  await service.startApi();
  const apps: SpawnedApp[] = [];
  for (let i = 0; i < workers; i++) apps.push(await service.startWorker(WORKER_ENV));
  const receiver = await startHttpsReceiver();
  return {
    redis,
    service,
    receiver,
    workers: apps,
    async stop() {
      await receiver.close();
      await service.stop();
      await redis.stop();
    },
  };
}

describe("on a Redis Cluster of 3 masters", () => {
  let on: OnRedis<RedisClusterHandle>;
  beforeAll(async () => {
    on = await serviceOn(
      () => startRedisCluster(3),
      (cluster) => ({ REDIS_CLUSTER_NODES: cluster.nodes, QUEUE_PREFIX: hashTagged() }),
      2,
    );
  });
  afterAll(() => on?.stop());

  it("when runs of an unlimited and a capacity-limited model are made, then two workers complete each once, charged once, webhooks delivered", async () => {
    const { accountId, client } = await on.service.account(10_000);
    const ids = [
      ...(await create(client, "acme/echo", 30, on.receiver.url("/cluster"))),
      ...(await create(client, "test/instant", 10, on.receiver.url("/cluster"))),
    ];
    await expectSettledOnce(on.service, accountId, ids, 10_000);
    // Run events (streams, the channel) live on the cluster too.
    const statuses: string[] = [];
    for await (const event of client.stream(ids[0]!))
      if (event.type === "status") statuses.push(event.run.status);
    // (QUEUED is recorded by the API and EXECUTING by a worker, in either order: an instant run's
    // QUEUED may come after its start and is then not replayed.)
    expect(statuses.filter((status) => status !== "QUEUED")).toEqual(["EXECUTING", "COMPLETED"]);
  });

  it("when an executing run is canceled, then the cancel reaches its worker across the cluster", async () => {
    const { client } = await on.service.account(100);
    const { run_id } = await client.runs.create("test/slow", { input: { prompt: "slow", num_images: 2 } });
    await waitFor(async () => ((await client.runs.get(run_id)).status === "EXECUTING" ? true : null));
    expect((await client.runs.cancel(run_id)).status).toBe("CANCELED");
    // Over the cluster's pub/sub, to whichever worker executes it.
    await Promise.any(
      on.workers.map((w) =>
        w.waitForLine((l) => l.run_id === run_id && l.message === "run aborted after cancel"),
      ),
    );
    expect(await client.runs.get(run_id)).toMatchObject({ status: "CANCELED", tokens_charged: 0 });
  });
});

describe("on Redis under Sentinel", () => {
  let on: OnRedis<RedisSentinelHandle>;
  beforeAll(async () => {
    on = await serviceOn(
      startRedisSentinel,
      (sentinel) => ({
        REDIS_SENTINELS: sentinel.sentinels,
        REDIS_SENTINEL_NAME: sentinel.name,
        REDIS_PASSWORD: sentinel.password,
        REDIS_SENTINEL_PASSWORD: sentinel.sentinelPassword,
      }),
      2,
    );
  });
  afterAll(() => on?.stop());

  it("when the master is killed while runs execute, then the replica takes over and no run, charge or delivery is lost", async () => {
    const { accountId, client } = await on.service.account(10_000);
    const { db } = on.service.database;
    // test/wait: 250 ms each, 8 at a time per worker: the kill lands mid-run.
    const before = await create(client, "test/wait", 60, on.receiver.url("/sentinel"));
    await waitFor(
      async () =>
        (await db.run.count({ where: { id: { in: before }, status: "COMPLETED" } })) >= 10 ? true : null,
      { what: "some runs to complete" },
    );
    const failoverMs = await on.redis.killMaster();
    // The kill landed with runs still to do (executing or waiting).
    expect(await db.run.count({ where: { id: { in: before }, status: "COMPLETED" } })).toBeLessThan(
      before.length,
    );
    // Runs made during and after the failover.
    const after = await create(client, "test/wait", 20, on.receiver.url("/sentinel"));
    await expectSettledOnce(on.service, accountId, [...before, ...after], 10_000);
    expect(failoverMs).toBeLessThan(30_000);
  }, 180_000);
});

describe("on Redis over mutual TLS", () => {
  let on: OnRedis<RedisTlsHandle>;
  beforeAll(async () => {
    on = await serviceOn(
      startRedisTls,
      (tls) => ({
        REDIS_URL: tls.url,
        REDIS_TLS_CA_FILE: tls.caFile,
        REDIS_TLS_CERT_FILE: tls.certFile,
        REDIS_TLS_KEY_FILE: tls.keyFile,
      }),
      1,
    );
  });
  afterAll(() => on?.stop());

  it("when runs are made, then they complete with the CA and client certificate of the settings", async () => {
    const { accountId, client } = await on.service.account(1_000);
    await expectSettledOnce(
      on.service,
      accountId,
      await create(client, "acme/echo", 5, on.receiver.url("/tls")),
      1_000,
    );
  });

  it("when a worker has no client certificate, then Redis refuses it and it waits, saying why", async () => {
    const worker = spawnApp("worker", {
      ...on.service.env,
      ...WORKER_ENV,
      REDIS_TLS_CERT_FILE: "",
      REDIS_TLS_KEY_FILE: "",
    });
    try {
      const line = await worker.waitForLine((l) => l.message === "waiting for redis");
      expect(String(line.error)).toMatch(/not connected/);
      expect(worker.lines.some((l) => l.message === "worker ready")).toBe(false);
    } finally {
      await stopApps(worker);
    }
  });
});

describe("a worker on a Redis that answers errors", () => {
  let service: E2EService;
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let redis: Awaited<ReturnType<typeof startRedisServer>>;

  beforeAll(async () => {
    [cluster, redis] = await Promise.all([startRedisCluster(3), startRedisServer()]);
    service = await startService({ REDIS_URL: redis.url });
    await service.startApi();
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([cluster?.stop(), redis?.stop()]);
  });

  it("when it is pointed at a Cluster node as one Redis, then it waits with the fix in a bounded number of lines", async () => {
    const worker = spawnApp("worker", {
      ...service.env,
      REDIS_URL: `redis://${cluster.nodes.split(",")[0]}`,
    });
    try {
      const line = await worker.waitForLine(
        (l) => l.message === "waiting for redis" && Number(l.attempt) >= 4,
      );
      expect(String(line.error)).toMatch(
        /CROSSSLOT.*set REDIS_CLUSTER_NODES and a QUEUE_PREFIX with a hash tag/,
      );
      // Attempts 1-4 over about 3 s: one line each, nothing else.
      expect(worker.lines.length).toBeLessThan(10);
      expect(worker.lines.some((l) => l.message === "worker ready")).toBe(false);
    } finally {
      await stopApps(worker);
    }
  });

  it("when the API is pointed at a Cluster node as one Redis, then /readyz is 503 naming the fix", async () => {
    const { base } = await service.startApi({ REDIS_URL: `redis://${cluster.nodes.split(",")[0]}` });
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    const { error } = (await res.json()) as { error: { details: { path: string; message: string }[] } };
    expect(error.details).toEqual([
      { path: "redis", message: expect.stringMatching(/CROSSSLOT.*set REDIS_CLUSTER_NODES/) },
    ]);
  });

  it("when Redis starts refusing every key under a running worker, then the worker backs off, logs a bounded number of lines, and resumes when Redis accepts again", async () => {
    const worker = await service.startWorker(WORKER_ENV);
    const admin = new Redis(redis.url);
    try {
      // The default user may still connect and PING, but touch no key: NOPERM on every job fetch.
      await admin.call("ACL", "SETUSER", "default", "resetkeys");
      const refusedAt = worker.lines.length;
      await worker.waitForLine((l) => Number(l.intake_paused_ms) >= 4_000, 30_000);
      const during = worker.lines.slice(refusedAt);
      // Four queues, each pausing 0.25, 0.5, 1, 2, 4 s: a handful of lines, not a spin.
      expect(during.length).toBeLessThan(150);
      await admin.call("ACL", "SETUSER", "default", "allkeys");
      const { client } = await service.account(100);
      const { run_id } = await client.runs.create("acme/echo", { input: { prompt: "back" } });
      await waitFor(async () => ((await client.runs.get(run_id)).status === "COMPLETED" ? true : null), {
        what: "a run after Redis accepts keys again",
        timeoutMs: 40_000,
      });
    } finally {
      admin.disconnect();
    }
  });

  it("when Redis refuses connections for a while under a running worker, then the worker logs a bounded number of lines and carries on when it is back", async () => {
    const proxy = await startTcpProxy(redis.port);
    const worker = await service.startWorker({ ...WORKER_ENV, REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
    try {
      proxy.cut();
      const cutAt = worker.lines.length;
      // Its connections try again and again (each attempt turned away here); its timers' passes
      // wait for Redis rather than fail, and none piles up behind another.
      await waitFor(async () => (proxy.refused() >= 60 ? true : null), {
        what: "reconnection attempts",
        timeoutMs: 45_000,
      });
      // Each kind of line (message and error) at most 10 times in 30 s: bounded, whatever the outage.
      const kinds = new Map<string, number>();
      for (const l of worker.lines.slice(cutAt)) {
        const kind = `${String(l.message)} ${String((l.error as { message?: string } | undefined)?.message ?? "").replace(/\d+/g, "#")}`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      expect(Math.max(0, ...kinds.values())).toBeLessThanOrEqual(10);
      proxy.restore();
      const { client } = await service.account(100);
      const { run_id } = await client.runs.create("acme/echo", { input: { prompt: "after the outage" } });
      await waitFor(async () => ((await client.runs.get(run_id)).status === "COMPLETED" ? true : null), {
        what: "a run after Redis is back",
        timeoutMs: 40_000,
      });
    } finally {
      proxy.restore();
      await stopApps(worker);
      await proxy.close();
    }
  }, 120_000);
});
