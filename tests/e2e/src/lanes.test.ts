import { freePort, seedCogModel, waitFor, type SpawnedApp } from "@svc/testkit";
import { cogWorkerEnv, fakeCogs, startService, type E2EService } from "./service.js";

// Workers of one lane (WORKER_LANES), against the built API and two workers: an interactive
// worker that executes normal runs only and a batch worker that feeds and executes batch items
// only, whoever leased their places. Synchronous Cog (executed where leased), asynchronous Cog
// (through jobs) and an unlimited model (straight to the workers' queues), then the batch worker
// SIGKILLed midway and another finishing its batch.
describe("worker lanes", () => {
  let service: E2EService;
  let interactive: SpawnedApp;
  let batch: SpawnedApp;
  let batchPort: number;
  const cogs = fakeCogs();

  beforeAll(async () => {
    service = await startService({ BATCH_FEED_INTERVAL_MS: "40", BATCH_MAX_SHARE_PERCENT: "50" });
    await service.startApi();
    batchPort = await freePort();
    interactive = await service.startWorker({
      ...cogWorkerEnv(await freePort()),
      WORKER_LANES: "interactive",
    });
    batch = await service.startWorker({ ...cogWorkerEnv(batchPort), WORKER_LANES: "batch" });
    const behaviour = { delayMs: 80, imageSide: 16 };
    const sync = [
      await cogs.start({ concurrency: 1, behaviour }),
      await cogs.start({ concurrency: 1, behaviour }),
    ];
    const async = await cogs.start({ concurrency: 2, behaviour });
    await seedCogModel(
      service.database.db,
      "lanes/sync",
      sync.map((s) => s.url),
      { runner: { predictions: "sync" } },
    );
    await seedCogModel(service.database.db, "lanes/async", [async.url], { runner: { concurrency: 2 } });
  });
  afterAll(async () => {
    await cogs.closeAll();
    await service?.stop();
  });

  const post = (key: string, path: string, body: unknown) =>
    fetch(`${service.base}/api/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const get = async <T>(key: string, path: string) =>
    (
      (await (
        await fetch(`${service.base}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as {
        data: T;
      }
    ).data;
  type Batch = { id: string; status: string; counts: { total: number; completed: number; failed: number } };
  const makeBatch = async (key: string, model: string, count: number, tag: string) =>
    (
      (await (
        await post(key, "/batches", {
          model,
          items: Array.from({ length: count }, (_, i) => ({
            custom_id: `${tag}${i}`,
            input: { prompt: `${tag}${i}` },
          })),
        })
      ).json()) as { data: Batch }
    ).data;
  const completed = (key: string, id: string) =>
    waitFor(
      async () => {
        const b = await get<Batch>(key, `/batches/${id}`);
        return b.status === "completed" ? b : null;
      },
      { what: `batch ${id} completed`, timeoutMs: 60_000 },
    );
  /** The runs a worker ended (its "run completed" lines). */
  const ranIn = (worker: SpawnedApp) =>
    new Set(worker.lines.filter((l) => l.message === "run completed").map((l) => String(l.run_id)));

  it("when batches and interactive runs of each kind of model run together, then each run is executed by its lane's worker alone", async () => {
    const { liveKey } = await service.account(10_000);
    const models = ["lanes/sync", "lanes/async", "acme/echo"];
    const batches = await Promise.all(models.map((m, i) => makeBatch(liveKey, m, 8, `m${i}-`)));
    const runs: string[] = [];
    for (let round = 0; round < 3; round++)
      for (const model of models) {
        const made = (await (
          await post(liveKey, `/models/${model}/run`, { input: { prompt: `r${round}` } })
        ).json()) as {
          data: { run_id: string };
        };
        runs.push(made.data.run_id);
      }
    for (const b of batches)
      expect((await completed(liveKey, b.id)).counts).toMatchObject({ total: 8, completed: 8 });
    await waitFor(
      async () =>
        (await Promise.all(runs.map((id) => get<{ status: string }>(liveKey, `/runs/${id}`)))).every(
          (r) => r.status === "COMPLETED",
        ) || null,
      { what: "the interactive runs completed" },
    );
    const items = (
      await service.database.db.run.findMany({ where: { batchId: { in: batches.map((b) => b.id) } } })
    ).map((r) => r.id);
    expect(items).toHaveLength(24);
    // The log lines of a run's end are written once it has settled: wait for them to be read.
    await waitFor(
      async () =>
        [...items, ...runs].every((id) => ranIn(batch).has(id) || ranIn(interactive).has(id)) || null,
      {
        what: "every run's end logged",
      },
    );
    const [inBatch, inInteractive] = [ranIn(batch), ranIn(interactive)];
    expect(items.filter((id) => !inBatch.has(id) || inInteractive.has(id))).toEqual([]);
    expect(runs.filter((id) => !inInteractive.has(id) || inBatch.has(id))).toEqual([]);
  });

  it("when the batch worker is killed midway, then another batch worker finishes its batch: every line once, each run completed and charged once, none executed by the interactive worker", async () => {
    const { liveKey, accountId } = await service.account(1_000);
    const made = await makeBatch(liveKey, "lanes/sync", 12, "k");
    await waitFor(
      async () => (await get<Batch>(liveKey, `/batches/${made.id}`)).counts.completed >= 3 || null,
      {
        what: "three items done",
      },
    );
    batch.child.kill("SIGKILL");
    await batch.exited;
    batch = await service.startWorker({ ...cogWorkerEnv(batchPort), WORKER_LANES: "batch" });
    expect((await completed(liveKey, made.id)).counts).toMatchObject({ total: 12, completed: 12, failed: 0 });
    const lines = (
      await (
        await fetch(`${service.base}/api/v1/batches/${made.id}/results`, {
          headers: { authorization: `Bearer ${liveKey}` },
        })
      ).text()
    )
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { custom_id: string; run_id: string; status: string });
    expect(lines.map((l) => l.custom_id)).toEqual(Array.from({ length: 12 }, (_, i) => `k${i}`));
    expect(new Set(lines.map((l) => l.run_id)).size).toBe(12);
    const runs = await service.database.db.run.findMany({ where: { batchId: made.id } });
    expect(runs.every((r) => r.status === "COMPLETED" && r.tokensCharged === 3)).toBe(true);
    const charges = await service.database.db.ledgerEntry.count({
      where: { runId: { in: runs.map((r) => r.id) }, kind: "CHARGE" },
    });
    expect(charges).toBe(12);
    const account = await service.database.db.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(account).toMatchObject({ balance: 1_000 - 36, reserved: 0 });
    const inInteractive = ranIn(interactive);
    expect(runs.filter((r) => inInteractive.has(r.id))).toEqual([]);
  });
});
