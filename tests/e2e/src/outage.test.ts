import { ledgerTotals, loadCatalogue, seedCatalogue } from "@svc/db";
import type { ModelRunClient } from "@svc/sdk";
import {
  freePort,
  seedCogModel,
  startBalancer,
  startFakeCog,
  startTcpProxy,
  stopApps,
  TEST_REDIS_URL,
  waitFor,
  type TcpProxy,
  localOutputKeys,
} from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

/**
 * The worker reaches Postgres or Redis through a TCP proxy that the test cuts and restores, as a
 * database failover or a network blink would; the API and the test's own reads go direct.
 */
describe("outages while a run executes", () => {
  let service: E2EService;
  const proxies: TcpProxy[] = [];
  // One worker per test, on its own proxy, stopped when the test ends.
  const startWorker = (env: Record<string, string>) =>
    service.startWorker({ SWEEP_INTERVAL_MS: "200", SWEEP_QUEUED_AFTER_MS: "0", ...env });

  beforeAll(async () => {
    service = await startService();
    await service.startApi();
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await service?.stop();
  });

  const proxied = async (url: string) => {
    const parsed = new URL(url);
    const proxy = await startTcpProxy(Number(parsed.port || 5432), parsed.hostname);
    proxies.push(proxy);
    parsed.host = `127.0.0.1:${proxy.port}`;
    return { proxy, url: parsed.toString() };
  };
  const createRun = async (client: ModelRunClient) =>
    (await client.runs.create("test/slow", { input: { prompt: "through the storm" } })).run_id;
  const account = () => service.account(100);
  const runIn = (runId: string, statuses: string[]) =>
    waitFor(
      async () => {
        const run = await service.database.db.run.findUnique({ where: { id: runId } });
        return run && statuses.includes(run.status) ? run : null;
      },
      { what: `run ${runId} to be ${statuses.join("/")}`, timeoutMs: 60_000, intervalMs: 50 },
    );

  it("when Postgres goes away after the model started and comes back later, then the finished run is settled COMPLETED once, not thrown away", async () => {
    const { proxy, url } = await proxied(service.database.url);
    const worker = await startWorker({ DATABASE_URL: url });
    try {
      const { accountId, client } = await account();
      const runId = await createRun(client);
      await runIn(runId, ["EXECUTING"]);
      proxy.cut();
      // The model (3 s) finishes during the outage; its settlement keeps waiting well past the
      // point where the job's attempts (3, backoff 1 s then 2 s) would all have been used up.
      await worker.waitForLine(
        (l) =>
          l.message === "run settlement waits for the database" && l.run_id === runId && Number(l.retry) >= 6,
        60_000,
      );
      proxy.restore();
      const done = await runIn(runId, ["COMPLETED", "FAILED"]);
      expect(done).toMatchObject({ status: "COMPLETED", tokensCharged: 5 });
      const totals = await ledgerTotals(service.database.db, accountId);
      expect(totals.cached).toEqual({ balance: 95, reserved: 0 });
      expect(totals.ledger).toEqual(totals.cached);
      expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
    } finally {
      proxy.restore();
      await stopApps(worker);
    }
  });

  it("when a finished run's settlement gives up while Postgres is away, then its files stay (the settlement may have committed) and the run still completes once", async () => {
    const { proxy, url } = await proxied(service.database.url);
    const worker = await startWorker({ DATABASE_URL: url, OUTAGE_HORIZON_MS: "1000" });
    const dir = service.env.OUTPUT_DIR!;
    const files = () => localOutputKeys(dir);
    // An audio model after a 2 s wait: its progress reports show no file, so only the settlement
    // can keep its track.
    const [tone] = (await loadCatalogue()).filter((m) => m.id === "acme/voice/tone");
    await seedCatalogue(service.database.db, [
      {
        ...tone!,
        id: "test/slow-tone",
        runner: { kind: "builtin", generator: "audio", delay_ms: 2_000 } as NonNullable<
          typeof tone
        >["runner"],
      },
    ]);
    try {
      const { accountId, client } = await account();
      const before = new Set(await files());
      const { run_id: runId } = await client.runs.create("test/slow-tone", {
        input: { prompt: "through the storm", duration_seconds: 2 },
      });
      await runIn(runId, ["EXECUTING"]);
      proxy.cut();
      await worker.waitForLine((l) => l.message === "run job failed" && l.job_id === runId, 60_000);
      // The attempt's track was made and its settlement's outcome is unknown: it is not deleted.
      const kept = (await files()).filter((f) => !before.has(f));
      expect(kept).toHaveLength(1);
      proxy.restore();
      const done = await runIn(runId, ["COMPLETED", "FAILED"]);
      expect(done).toMatchObject({ status: "COMPLETED" });
      expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
      const totals = await ledgerTotals(service.database.db, accountId);
      expect(totals.ledger).toEqual(totals.cached);
      for (const url of (done.output as { audio: string[] }).audio)
        expect((await fetch(url)).status).toBe(200);
      expect(await files()).toEqual(expect.arrayContaining(kept));
    } finally {
      proxy.restore();
      await stopApps(worker);
    }
  });

  it("when Postgres is away as a run is picked up, then its start waits instead of using up the job's attempts", async () => {
    const { proxy, url } = await proxied(service.database.url);
    const worker = await startWorker({ DATABASE_URL: url });
    try {
      proxy.cut();
      const { client } = await account();
      const runId = await createRun(client);
      await worker.waitForLine(
        (l) => l.message === "run start waits for the database" && l.run_id === runId && Number(l.retry) >= 6,
        60_000,
      );
      proxy.restore();
      expect(await runIn(runId, ["COMPLETED", "FAILED"])).toMatchObject({ status: "COMPLETED", attempts: 1 });
    } finally {
      proxy.restore();
      await stopApps(worker);
    }
  });

  it("when Redis goes away mid-run and comes back, then the run ends COMPLETED, charged once, and the worker takes new runs", async () => {
    const { proxy, url } = await proxied(TEST_REDIS_URL);
    const worker = await startWorker({ REDIS_URL: url });
    try {
      const { accountId, client } = await account();
      const runId = await createRun(client);
      await runIn(runId, ["EXECUTING"]);
      proxy.cut();
      await runIn(runId, ["COMPLETED", "FAILED"]);
      await worker.waitForLine((l) => String(l.message).includes("worker error"), 30_000);
      proxy.restore();
      const next = await createRun(client);
      expect(await runIn(next, ["COMPLETED", "FAILED"])).toMatchObject({ status: "COMPLETED" });
      expect(await runIn(runId, ["COMPLETED", "FAILED"])).toMatchObject({
        status: "COMPLETED",
        tokensCharged: 5,
      });
      expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
      const totals = await ledgerTotals(service.database.db, accountId);
      expect(totals.cached).toEqual({ balance: 90, reserved: 0 });
      expect(totals.ledger).toEqual(totals.cached);
      expect(worker.child.exitCode).toBeNull();
    } finally {
      proxy.restore();
      await stopApps(worker);
    }
  });

  /**
   * Five runs for a one-slot model server; while the first executes, the worker loses Redis or
   * Postgres, the prediction ends, and the outage outlasts the leases (3 s) before it ends.
   */
  async function waitingRunsThrough(lost: "redis" | "postgres", model: string) {
    const { proxy, url } = await proxied(lost === "redis" ? TEST_REDIS_URL : service.database.url);
    const balancer = await startBalancer();
    const gpu = await startFakeCog({ behaviour: { delayMs: 400, imageSide: 16 } });
    const port = await freePort();
    await seedCogModel(service.database.db, model, [gpu.url]);
    const worker = await startWorker({
      ...(lost === "redis" ? { REDIS_URL: url } : { DATABASE_URL: url }),
      COG_CALLBACK_URL: balancer.url,
      COG_CALLBACK_PORT: String(port),
      COG_CALLBACK_HOST: "127.0.0.1",
      SCHEDULER_LEASE_MS: "3000",
      POOL_MONITOR_INTERVAL_MS: "100",
      SWEEP_QUEUED_AFTER_MS: "1000",
    });
    balancer.targets.push(port);
    try {
      const { accountId, client } = await service.account(1_000);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await client.runs.create(model, { input: { prompt: "p", num_images: 1 } })).run_id);
      await runIn(ids[0]!, ["EXECUTING"]);
      proxy.cut();
      const ended = await waitFor(
        async () => [...gpu.predictions.values()].find((p) => p.endedAt !== undefined)?.endedAt,
        { what: "a prediction to end during the outage" },
      );
      await waitFor(async () => Date.now() - ended > 4_000, { what: "the leases to lapse" });
      proxy.restore();
      for (const id of ids)
        expect(await runIn(id, ["COMPLETED", "FAILED", "CANCELED"])).toMatchObject({ status: "COMPLETED" });
      const starts = gpu.puts.filter((p) => p.started).map((p) => p.id);
      expect(starts.sort()).toEqual([...ids].sort());
      const totals = await ledgerTotals(service.database.db, accountId);
      expect(totals.cached.reserved).toBe(0);
      expect(totals.ledger).toEqual(totals.cached);
      for (const id of ids)
        expect(await service.database.db.ledgerEntry.count({ where: { runId: id, kind: "CHARGE" } })).toBe(1);
      // One slot, one run at a time: the busy server never met a second run.
      expect(gpu.conflicts).toBe(0);
    } finally {
      proxy.restore();
      await stopApps(worker);
      await gpu.close();
      await balancer.close();
    }
  }

  it("when Redis goes away while runs wait for a model server and comes back, then no lease lapses on arrival: the server never meets a second run, each prediction runs once and every run completes, charged once", () =>
    // The webhook, the slot's release and the renewals wait in the worker's offline queue; the
    // leases they grant or extend count from when they reach Redis.
    waitingRunsThrough("redis", "outage/gpu"));

  it("when Postgres goes away while runs wait for a model server and comes back, then the next prediction, sent ahead of its start, is not sent again, and every run completes, charged once", () =>
    // Redis is there: the slot goes to the next run and its prediction is sent at once, while its
    // start (and the first run's settlement) wait for the database.
    waitingRunsThrough("postgres", "outage/gpu-pg"));
});
