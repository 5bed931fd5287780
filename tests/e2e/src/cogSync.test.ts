import { ledgerTotals } from "@svc/db";
import type { ModelRunClient } from "@svc/sdk";
import {
  createLeasedRunsQueue,
  handOffList,
  redisScheduler,
  type LeasedRunsQueue,
  type Scheduler,
} from "@svc/queue";
import {
  freePort,
  seedCogModel,
  stopApps,
  TEST_REDIS_URL,
  waitFor,
  type FakeCog,
  type SpawnedApp,
} from "@svc/testkit";
import { Redis } from "ioredis";
import { cogWorkerEnv, fakeCogs, runReaching, startService, type E2EService } from "./service.js";

// Cog models whose predictions are synchronous (the runner setting `predictions: "sync"`, what an
// import chooses): each is one request from the worker that leased the server, answered at the
// prediction's end, with its progress still reported by webhook. The guarantees are the
// asynchronous mode's (cog.test.ts): charged once, canceled runs charged what they delivered, a
// dead server or worker costs the run nothing but time. (cog.test.ts runs a dead server, a
// refused input and --upload-url in both modes.)
describe("Cog runner with synchronous predictions", () => {
  let service: E2EService;
  let worker: SpawnedApp;
  let client: ModelRunClient;
  let accountId: string;
  let callbackPort: number;

  const workerEnv = cogWorkerEnv;
  const syncModel = (id: string, servers: FakeCog[], extra: Record<string, unknown> = {}) =>
    seedCogModel(
      service.database.db,
      id,
      servers.map((s) => s.url),
      {
        runner: { predictions: "sync", input_map: { rename: { num_images: "num_outputs" }, expand: {} } },
        ...extra,
      },
    );
  const cogs = fakeCogs();
  const fakeCog = cogs.start;
  const create = async (model: string, input: Record<string, unknown>) =>
    (await client.runs.create(model, { input })).run_id;
  const until = (runId: string, statuses: string[]) => runReaching(client, runId, statuses);
  const charges = (runId: string) =>
    service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } });

  beforeAll(async () => {
    callbackPort = await freePort();
    service = await startService();
    await service.startApi();
    worker = await service.startWorker(workerEnv(callbackPort));
    ({ client, accountId } = await service.account(1000));
  });
  afterAll(async () => {
    await cogs.closeAll();
    await service?.stop();
  });

  it("when a run completes, then its prediction was one synchronous request, its outputs are ours and it is charged its units", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 50 } });
    await syncModel("sync/sdxl", [cog]);
    const before = (await ledgerTotals(service.database.db, accountId)).cached.balance;
    const runId = await create("sync/sdxl", { prompt: "a lighthouse", num_images: 2 });
    const done = await until(runId, ["COMPLETED", "FAILED"]);
    expect(done).toMatchObject({ status: "COMPLETED", tokens_charged: 10 });
    expect(cog.puts).toEqual([
      {
        id: runId,
        started: true,
        prefer: undefined,
        sync: true,
        input: { prompt: "a lighthouse", num_outputs: 2, image_size: "square_hd" },
      },
    ]);
    for (const url of done.output!.images as string[]) {
      expect(url.startsWith(`${service.base}/files/out_`)).toBe(true);
      expect((await fetch(url)).headers.get("content-type")).toBe("image/png");
    }
    expect((await ledgerTotals(service.database.db, accountId)).cached).toEqual({
      balance: before - 10,
      reserved: 0,
    });
    // Its end came on the request: the server was asked for its progress by webhook, not its end.
    expect(cog.predictions.get(runId)!.events).toEqual(["output", "logs"]);
  });

  it("when the API leases a run a slot at its creation, then a worker takes it from the hand-off and executes it without ever a job: completed once, charged once", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 50 } });
    await syncModel("sync/handoff", [cog]);
    // The server is known to the scheduler (the worker's monitor found it up): the API's enqueue
    // leases it the run, rather than the worker's setSlots.
    await waitFor(
      async () => (await inRedis((scheduler) => scheduler.stats("sync/handoff"))).capacity === 1,
      {
        what: "the server's slot",
      },
    );
    const runId = await create("sync/handoff", { prompt: "a harbour" });
    expect(await until(runId, ["COMPLETED", "FAILED"])).toMatchObject({
      status: "COMPLETED",
      tokens_charged: 5,
    });
    expect(cog.puts.map((p) => p.id)).toEqual([runId]);
    expect(await charges(runId)).toBe(1);
    // A leased run's job is kept once completed, and its queue's event stream names every job
    // added: this run had none (its backstop is written only after BACKSTOP_AFTER_MS).
    const { job, added } = await inRedis(async (_, leased, redis) => ({
      job: await leased.getJob(runId),
      added: (await redis.xrange(leased.keys.events!, "-", "+"))
        .map(([, fields]) => fields)
        .filter((f) => f.includes("added") && f.includes(runId)),
    }));
    expect({ job, added }).toEqual({ job: undefined, added: [] });
  });

  it("when a backlog drains through short predictions, then each server keeps its next run, sent as the one before ends: every run completed once, charged once, no server ever busy", async () => {
    const servers = [
      await fakeCog({ behaviour: { delayMs: 30 } }),
      await fakeCog({ behaviour: { delayMs: 30 } }),
    ];
    await syncModel("sync/backlog", servers);
    const ids = await Promise.all(
      Array.from({ length: 60 }, (_, i) => create("sync/backlog", { prompt: `item ${i}` })),
    );
    // Once ten runs ended (the pool's runs are known to be short), the slots hold their next runs.
    await waitFor(async () => (await inRedis((scheduler) => scheduler.stats("sync/backlog"))).nextRuns > 0, {
      what: "a slot holding its next run",
      intervalMs: 10,
    });
    for (const id of ids)
      expect(await until(id, ["COMPLETED", "FAILED"])).toMatchObject({ status: "COMPLETED" });
    const sent = servers.flatMap((s) => s.puts.map((p) => p.id)).sort();
    expect(sent).toEqual([...ids].sort());
    expect(servers.map((s) => s.conflicts)).toEqual([0, 0]);
    for (const id of ids) expect(await charges(id)).toBe(1);
    expect(await inRedis((scheduler) => scheduler.stats("sync/backlog"))).toMatchObject({
      leased: 0,
      queued: 0,
      nextRuns: 0,
    });
  });

  it("when the model fails, then the run is FAILED with Cog's words, charged 0", async () => {
    const broken = await fakeCog({ behaviour: { delayMs: 20, fail: "CUDA out of memory" } });
    await syncModel("sync/broken", [broken]);
    const failed = await until(await create("sync/broken", { prompt: "p" }), ["FAILED"]);
    expect(failed.error).toEqual({ code: "MODEL_ERROR", message: "CUDA out of memory" });
    expect(await charges(failed.run_id)).toBe(0);
  });

  it("when an executing run is canceled, then its prediction is canceled on the server, the run charged 0, and the server takes the next one", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 30_000 } });
    await syncModel("sync/slow", [cog]);
    const runId = await create("sync/slow", { prompt: "p" });
    await waitFor(async () => cog.puts.length === 1, { what: "the prediction" });
    await client.runs.cancel(runId);
    expect(await until(runId, ["CANCELED"])).toMatchObject({ tokens_charged: 0 });
    await waitFor(async () => cog.predictions.get(runId)?.status === "canceled", {
      what: "the server's cancel",
    });
    cog.behaviour.delayMs = 20;
    expect(await until(await create("sync/slow", { prompt: "next" }), ["COMPLETED"])).toMatchObject({
      tokens_charged: 5,
    });
  });

  it("when a run is canceled while it waits in the hand-off list, then the worker that takes it gives its server back: charged 0, and the server takes the next one", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 20 } });
    await syncModel("sync/handoff-canceled", [cog]);
    await waitFor(
      async () => (await inRedis((scheduler) => scheduler.stats("sync/handoff-canceled"))).capacity === 1,
      { what: "the server's slot" },
    );
    await stopApps(worker);
    const runId = await create("sync/handoff-canceled", { prompt: "never" });
    const list = handOffList(service.prefix, "interactive");
    expect(await inRedis((_, __, redis) => redis.llen(list))).toBe(1);
    await client.runs.cancel(runId);
    expect(await until(runId, ["CANCELED"])).toMatchObject({ tokens_charged: 0 });
    worker = await service.startWorker(workerEnv((callbackPort = await freePort())));
    const next = await until(await create("sync/handoff-canceled", { prompt: "next" }), ["COMPLETED"]);
    expect(next).toMatchObject({ tokens_charged: 5 });
    expect(await inRedis((_, __, redis) => redis.llen(list))).toBe(0);
    expect(await client.runs.get(runId)).toMatchObject({ status: "CANCELED", tokens_charged: 0 });
    expect(await charges(runId)).toBe(0);
  });

  it("when the model yields an image and the run is then canceled, then the image was shown as ours and is what is charged", async () => {
    const cog = await fakeCog({ behaviour: { delayMs: 30_000, outputAsUrl: true } });
    await syncModel("sync/yields", [cog]);
    const runId = await create("sync/yields", { prompt: "p", num_images: 2 });
    await waitFor(async () => cog.puts.length === 1, { what: "the prediction" });
    const shown = (async () => {
      for await (const event of client.stream(runId))
        if (event.type === "progress" && event.progress.output) return event.progress.output;
      throw new Error("the run ended before showing an output");
    })();
    // The synchronous prediction's progress still comes by webhook (Cog sends it for any prediction given one).
    expect(await cog.yieldOutputs(runId, 1)).toBe(200);
    const { images } = (await shown) as { images: string[] };
    expect(images[0]!.startsWith(`${service.base}/files/out_`)).toBe(true);
    await client.runs.cancel(runId);
    expect(await until(runId, ["CANCELED"])).toMatchObject({ tokens_charged: 5 });
    expect((await fetch(images[0]!)).status).toBe(200);
  });

  it("when the worker holding servers' next runs is killed mid-backlog, then another worker takes its runs over (their slots' next runs with them) and completes every run once, charged once", async () => {
    const servers = [
      await fakeCog({ behaviour: { delayMs: 80 } }),
      await fakeCog({ behaviour: { delayMs: 80 } }),
    ];
    await syncModel("sync/killed-next", servers);
    // A run leased and not yet started when its worker dies (a next run claimed a moment before
    // the kill, as any run leased where it executes) gets a job from the sweeper once it is
    // SWEEP_QUEUED_AFTER_MS old (30 s by default) and its lease LEASED_JOB_GRACE_MS old.
    const env = {
      ...workerEnv((callbackPort = await freePort())),
      SWEEP_INTERVAL_MS: "300",
      SWEEP_QUEUED_AFTER_MS: "1000",
    };
    await stopApps(worker);
    const doomed = await service.startWorker(env);
    const ids = await Promise.all(
      Array.from({ length: 40 }, (_, i) => create("sync/killed-next", { prompt: `item ${i}` })),
    );
    await waitFor(
      async () => (await inRedis((scheduler) => scheduler.stats("sync/killed-next"))).nextRuns > 0,
      { what: "a slot holding its next run", intervalMs: 10 },
    );
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    worker = await service.startWorker(env);
    for (const id of ids)
      expect(await until(id, ["COMPLETED", "FAILED"])).toMatchObject({ status: "COMPLETED" });
    for (const id of ids) expect(await charges(id)).toBe(1);
    expect(servers.map((s) => s.conflicts)).toEqual([0, 0]);
    expect(await inRedis((scheduler) => scheduler.stats("sync/killed-next"))).toMatchObject({
      leased: 0,
      queued: 0,
      nextRuns: 0,
    });
  });

  /**
   * A run executed where leased, whose worker is SIGKILLed at once, in its first second without a
   * job. `leasedBy` "api": the API leases it at its creation and the worker takes it from the
   * hand-off; "worker": a first run holds the server, so that the second is leased by the worker
   * that hears the first one end.
   */
  async function killedExecutingHere(model: string, leasedBy: "api" | "worker" = "worker") {
    const cog = await fakeCog({ behaviour: { delayMs: 600_000 } });
    await syncModel(model, [cog]);
    const env = { ...workerEnv((callbackPort = await freePort())), SWEEP_INTERVAL_MS: "300" };
    await stopApps(worker);
    const doomed = await service.startWorker(env);
    let runId: string;
    if (leasedBy === "api") {
      await waitFor(async () => (await inRedis((scheduler) => scheduler.stats(model))).capacity === 1, {
        what: "the server's slot",
      });
      runId = await create(model, { prompt: "only" });
      await waitFor(async () => cog.puts.length === 1, { what: "the prediction", intervalMs: 5 });
    } else {
      const first = await create(model, { prompt: "first" });
      await waitFor(async () => cog.puts.length === 1, { what: "the first prediction" });
      runId = await create(model, { prompt: "second" });
      cog.finish(first);
      await waitFor(async () => cog.puts.length === 2, { what: "the second prediction", intervalMs: 5 });
      // The first run settles once its server is handed over: killed before that, it would be left
      // to the sweeper with no worker running. The second is still in its first second.
      await waitFor(async () => (await client.runs.get(first)).status === "COMPLETED", {
        what: "the first run settled",
        intervalMs: 5,
      });
    }
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    await waitFor(async () => cog.predictions.get(runId)?.status === "canceled", {
      what: "the server to cancel the prediction whose connection dropped",
    });
    cog.behaviour.delayMs = 50;
    return { cog, runId, env };
  }
  /** Its Redis records: the scheduler's, and its job (undefined: none). */
  async function inRedis<T>(
    use: (scheduler: Scheduler, leased: LeasedRunsQueue, redis: Redis) => Promise<T>,
  ) {
    const redis = new Redis(TEST_REDIS_URL);
    const leased = createLeasedRunsQueue(redis, service.prefix);
    try {
      return await use(
        redisScheduler(redis, service.prefix, { leaseMs: 60_000, defaultLimit: 100 }),
        leased,
        redis,
      );
    } finally {
      await leased.close();
      redis.disconnect();
    }
  }

  it.each([
    ["a run it leased", "worker", "sync/takeover"],
    ["a run it took from the API's hand-off", "api", "sync/handoff-killed"],
  ] as const)(
    "when the worker executing %s is killed before the run's backstop job, then the sweeper gives the lease a job and the next worker sends the prediction again: completed once, charged once",
    async (_, leasedBy, model) => {
      const { cog, runId, env } = await killedExecutingHere(model, leasedBy);
      // Killed in the run's first second (BACKSTOP_AFTER_MS): leased, with no job.
      const state = await inRedis(async (scheduler, leased) => ({
        slot: (await scheduler.states([runId])).get(runId)?.slot,
        job: await leased.getJob(runId),
      }));
      expect(state).toEqual({ slot: `${cog.url}#0`, job: undefined });
      worker = await service.startWorker(env);
      const done = await until(runId, ["COMPLETED", "FAILED"]);
      expect(done).toMatchObject({ status: "COMPLETED", tokens_charged: 5 });
      expect(cog.puts.filter((p) => p.id === runId).map((p) => [p.started, p.sync])).toEqual([
        [true, true],
        [true, true],
      ]);
      expect(await charges(runId)).toBe(1);
    },
  );

  it("when a worker died executing a run and its lease lapsed, then the sweeper puts the EXECUTING run back in line: completed once, charged once", async () => {
    const { cog, runId, env } = await killedExecutingHere("sync/lapsed");
    // What SCHEDULER_LEASE_MS after the crash leaves: an EXECUTING run neither waiting nor leased,
    // with no job.
    const state = await inRedis(async (scheduler, leased) => {
      expect(await scheduler.release([runId])).toEqual([]);
      return { state: (await scheduler.states([runId])).get(runId), job: await leased.getJob(runId) };
    });
    expect(state).toMatchObject({ state: { waiting: false, slot: null }, job: undefined });
    expect((await client.runs.get(runId)).status).toBe("EXECUTING");
    worker = await service.startWorker(env);
    expect(await until(runId, ["COMPLETED", "FAILED"])).toMatchObject({
      status: "COMPLETED",
      tokens_charged: 5,
    });
    expect(cog.puts.filter((p) => p.id === runId)).toHaveLength(2);
    expect(await charges(runId)).toBe(1);
  });
});
