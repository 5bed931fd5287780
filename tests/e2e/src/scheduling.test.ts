import { runCommand } from "@svc/cli";
import { ledgerTotals } from "@svc/db";
import { ModelRunClient, ModelRunError, type AnyRun } from "@svc/sdk";
import { Redis } from "ioredis";
import { createLeasedRunsQueue } from "@svc/queue";
import {
  TEST_REDIS_URL,
  freePort,
  seedCogModel,
  startBalancer,
  startFakeCog,
  waitFor,
  type Balancer,
  type FakeCog,
  type SpawnedApp,
} from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// Scheduling onto real capacity, end to end: the built API (two processes) and two worker
// processes behind one Cog callback address (a balancer, as a Kubernetes Service would be), fake
// Cog servers that speak the real protocol with a GPU's limits (one prediction at a time, 409 when
// busy). Predictions end when a test says so (finish), so every state is observed, not raced.
describe("scheduling onto model servers", () => {
  let service: E2EService;
  let balancer: Balancer;
  const workers: { app: SpawnedApp; port: number; metrics: number }[] = [];
  const cogs: FakeCog[] = [];
  let secondApi: string;

  const startWorker = async () => {
    const port = await freePort();
    const metrics = await freePort();
    const app = await service.startWorker({
      METRICS_PORT: String(metrics),
      METRICS_HOST: "127.0.0.1",
      COG_CALLBACK_URL: balancer.url,
      COG_CALLBACK_PORT: String(port),
      COG_CALLBACK_HOST: "127.0.0.1",
      WORKER_CONCURRENCY: "4",
      RUN_LOCK_MS: "1000",
      SCHEDULER_LEASE_MS: "6000",
      POOL_MONITOR_INTERVAL_MS: "100",
      CONTENT_POLICY_BLOCKLIST: "forbidden",
      // Each prediction's start (sent ahead or by its job) is a debug line: the tests follow them.
      LOG_LEVEL: "debug",
      SWEEP_INTERVAL_MS: "300",
      SWEEP_QUEUED_AFTER_MS: "300",
    });
    workers.push({ app, port, metrics });
    balancer.targets.push(port);
    return app;
  };

  /** A model with the public image interface served by the given Cog servers. */
  const cogModel = (id: string, servers: FakeCog[], extra: Record<string, unknown> = {}) =>
    seedCogModel(
      service.database.db,
      id,
      servers.map((s) => s.url),
      extra,
    );
  const fakeCog = async (...args: Parameters<typeof startFakeCog>) => {
    const cog = await startFakeCog(...args);
    cogs.push(cog);
    return cog;
  };
  const running = (cog: FakeCog) => [...cog.predictions.values()].filter((p) => p.status === "processing");
  /**
   * Predictions started more than once (a second PUT that started rather than re-attached), each
   * with the servers (index in `cogList`) it started on and every worker line about its run: empty
   * when every prediction started once. The lines say which path sent the second start.
   */
  const startedTwice = (cogList: FakeCog[], lines: Record<string, unknown>[]) => {
    const starts = cogList.flatMap((c, server) =>
      c.puts.filter((p) => p.started).map((p) => ({ id: p.id, server })),
    );
    const twice = [...new Set(starts.map((s) => s.id))].filter(
      (id) => starts.filter((s) => s.id === id).length > 1,
    );
    return twice.map((id) => ({
      id,
      servers: starts.filter((s) => s.id === id).map((s) => s.server),
      lines: lines.filter((l) => l.run_id === id || l.prediction_id === id),
    }));
  };
  const workerLines = () => workers.flatMap((w) => w.app.lines);
  /** The most predictions a server ran at once. */
  const peak = (cog: FakeCog) => {
    const edges = [...cog.predictions.values()].flatMap((p) => [
      [p.startedAt, 1],
      [p.endedAt ?? Infinity, -1],
    ]);
    edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    let now = 0;
    let most = 0;
    for (const [, d] of edges) most = Math.max(most, (now += d!));
    return most;
  };
  const create = (client: ModelRunClient, model: string, extra: Record<string, unknown> = {}) =>
    client.runs.create(model, { input: { prompt: "p", num_images: 1 }, ...extra }).then((r) => r.run_id);
  const until = (client: ModelRunClient, runId: string, statuses: string[]) =>
    waitFor(
      async () => {
        const run: AnyRun = await client.runs.get(runId);
        return statuses.includes(run.status) ? run : null;
      },
      { what: `run ${runId} to be ${statuses.join("/")}`, timeoutMs: 30_000 },
    );
  /** Ends the running predictions one at a time until `done` says so. */
  async function finishInTurn(cogList: FakeCog[], done: () => Promise<boolean>) {
    for (;;) {
      const next = await waitFor(
        async () =>
          (await done()) ? "done" : (cogList.flatMap((c) => running(c).map((p) => ({ c, p })))[0] ?? null),
        { what: "a running prediction, or the end", intervalMs: 20 },
      );
      if (next === "done") return;
      next.c.finish(next.p.id);
    }
  }

  beforeAll(async () => {
    balancer = await startBalancer();
    service = await startService();
    await service.startApi();
    secondApi = (await service.startApi()).base;
    await startWorker();
    await startWorker();
  });
  afterAll(async () => {
    await Promise.all(cogs.map((c) => c.close()));
    await service?.stop();
    await balancer?.close();
  });

  it("when a burst outgrows a model's servers, then at most capacity runs execute, the rest wait QUEUED with distinct places and spread estimates, and no server meets a 409", async () => {
    // Predictions of 300 ms first, so that the model has run times to estimate from; then ones
    // that run until the test ends them.
    const [one, two] = [
      await fakeCog({ behaviour: { delayMs: 300 } }),
      await fakeCog({ behaviour: { delayMs: 300 } }),
    ];
    await cogModel("sched/slow", [one!, two!]);
    const { client } = await service.account(10_000);
    const warm = [await create(client, "sched/slow"), await create(client, "sched/slow")];
    for (const id of warm)
      expect((await until(client, id, ["COMPLETED", "FAILED"])).status).toBe("COMPLETED");
    for (const c of [one!, two!]) c.behaviour.delayMs = 600_000;

    const ids = await Promise.all(Array.from({ length: 12 }, () => create(client, "sched/slow")));
    await waitFor(async () => running(one!).length + running(two!).length === 2, {
      what: "both servers busy",
    });
    const model = await client.models.get("sched/slow");
    expect(model).toMatchObject({ capacity: 2, in_flight: 2, queue_length: 10 });
    // Operators see the same on any worker's /metrics.
    const scraped = await (await fetch(`http://127.0.0.1:${workers[1]!.metrics}/metrics`)).text();
    for (const line of [
      'svc_pool_capacity{model="sched/slow"} 2',
      'svc_pool_leased{model="sched/slow"} 2',
      'svc_pool_queued{model="sched/slow"} 10',
      `svc_model_server_up{model="sched/slow",server="${one!.url}"} 1`,
    ])
      expect(scraped).toContain(line);
    expect(scraped).toMatch(/svc_pool_oldest_queued_seconds\{model="sched\/slow"\} [0-9.]+/);
    // Dispatch latency is observed by the worker that executed a run: one of the two has.
    const dispatched = await Promise.all(
      workers.map(async (w) => (await fetch(`http://127.0.0.1:${w.metrics}/metrics`)).text()),
    );
    expect(
      dispatched.some((text) => /svc_dispatch_latency_seconds_count\{model="sched\/slow"\} [1-9]/.test(text)),
    ).toBe(true);
    const views = await Promise.all(ids.map((id) => client.runs.get(id)));
    expect(views.filter((v) => v.status === "EXECUTING")).toHaveLength(2);
    const queued = views.filter((v) => v.status === "QUEUED");
    expect(queued).toHaveLength(10);
    const places = queued.map((v) => (v as { queue_position: number }).queue_position).sort((a, b) => a - b);
    expect(places).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const estimates = queued
      .map((v) => Date.parse((v as { estimated_start_at: string }).estimated_start_at))
      .sort((a, b) => a - b);
    expect(new Set(estimates).size).toBeGreaterThan(3);
    // Served oldest first, as the places said: the next start is the run told place 1.
    const first = queued.find((v) => (v as { queue_position: number }).queue_position === 1)!;
    const busy = running(one!)[0]!;
    one!.finish(busy.id);
    await waitFor(async () => running(one!).length + running(two!).length === 2);
    expect([...running(one!), ...running(two!)].map((p) => p.id)).toContain(first.run_id);

    await finishInTurn([one!, two!], async () =>
      (await Promise.all(ids.map((id) => client.runs.get(id)))).every((v) => v.status === "COMPLETED"),
    );
    expect(peak(one!)).toBe(1);
    expect(peak(two!)).toBe(1);
    expect(one!.conflicts + two!.conflicts).toBe(0);
    expect(startedTwice([one!, two!], workerLines())).toEqual([]);
    // A slot freed on a worker gets its next run sent there and then, before that run's job.
    const early = workers
      .flatMap((w) => w.app.lines)
      .filter((l) => l.message === "cog prediction started" && l.early);
    expect(early.length).toBeGreaterThanOrEqual(8);
    // Operators see how long those handovers took (the control plane's part of a server's idle gap).
    const handovers = await Promise.all(
      workers.map(async (w) => {
        const text = await (await fetch(`http://127.0.0.1:${w.metrics}/metrics`)).text();
        return Number(/svc_slot_handover_seconds_count\{model="sched\/slow"\} (\d+)/.exec(text)?.[1] ?? 0);
      }),
    );
    // Each counts a release's next run sent early; a slot that a health check gave back (a server
    // slow to answer on a loaded machine) dispatches with no release to time it from.
    expect(handovers[0]! + handovers[1]!).toBeGreaterThanOrEqual(1);
    expect(handovers[0]! + handovers[1]!).toBeLessThanOrEqual(early.length);
  });

  it("when a run with a blocked prompt is given a freed slot, then nothing is sent to the server and it fails CONTENT_POLICY", async () => {
    const gpu = await fakeCog({ behaviour: { delayMs: 600_000 } });
    await cogModel("sched/policy", [gpu]);
    const { client } = await service.account(1_000);
    const first = await create(client, "sched/policy");
    await waitFor(async () => running(gpu).length === 1);
    const blocked = await create(client, "sched/policy", {
      input: { prompt: "something forbidden", num_images: 1 },
    });
    const after = await create(client, "sched/policy");
    gpu.finish(first);
    expect(await until(client, blocked, ["FAILED"])).toMatchObject({ error: { code: "CONTENT_POLICY" } });
    await waitFor(async () => running(gpu).length === 1);
    expect(gpu.puts.map((p) => p.id)).toEqual([first, after]);
    gpu.finish(after);
    expect((await until(client, after, ["COMPLETED"])).status).toBe("COMPLETED");
  });

  it("when a run whose work was sent ahead of its start turns out canceled, then the work is canceled on the server", async () => {
    // As when a cancel lands between a slot's lease (the prediction sent) and the run's start.
    const gpu = await fakeCog({ behaviour: { delayMs: 600_000 } });
    await cogModel("sched/abandon", [gpu]);
    const { client } = await service.account(1_000);
    const first = await create(client, "sched/abandon");
    await waitFor(async () => running(gpu).length === 1);
    const late = await create(client, "sched/abandon");
    await client.runs.cancel(late);
    const redis = new Redis(TEST_REDIS_URL);
    const leased = createLeasedRunsQueue(redis, service.prefix);
    try {
      await leased.add(
        "execute",
        { runId: late, slot: `${gpu.url}#0`, pool: "sched/abandon", leasedAt: Date.now(), begun: true },
        { jobId: late },
      );
      await waitFor(async () => gpu.cancels.includes(late), { what: "the cancel to reach the server" });
    } finally {
      await leased.close();
      redis.disconnect();
    }
    gpu.finish(first);
    expect((await until(client, first, ["COMPLETED"])).status).toBe("COMPLETED");
  });

  it("when a server fails its health check, then its slots leave the pool until it passes again; a server added to the catalogue adds capacity without a restart", async () => {
    const [one, two] = [
      await fakeCog({ behaviour: { delayMs: 50 } }),
      await fakeCog({ behaviour: { delayMs: 50 } }),
    ];
    await cogModel("sched/health", [one!]);
    const { client } = await service.account(1_000);
    const capacity = (n: number) =>
      waitFor(async () => ((await client.models.get("sched/health")).capacity === n ? true : null), {
        what: `capacity ${n}`,
      });
    expect((await until(client, await create(client, "sched/health"), ["COMPLETED"])).status).toBe(
      "COMPLETED",
    );
    await capacity(1);
    one!.health = "STARTING";
    await capacity(0);
    const waiting = await create(client, "sched/health");
    expect((await client.runs.get(waiting)).status).toBe("QUEUED");
    one!.health = "READY";
    expect((await until(client, waiting, ["COMPLETED"])).status).toBe("COMPLETED");
    await cogModel("sched/health", [one!, two!]);
    await capacity(2);
  });

  it("when a second account submits one run after a first account's burst, then it starts within the next two dispatches", async () => {
    const gpu = await fakeCog({ behaviour: { delayMs: 600_000 } });
    await cogModel("sched/fair", [gpu]);
    const a = await service.account(10_000);
    const b = await service.account(10_000);
    const burst = await Promise.all(Array.from({ length: 8 }, () => create(a.client, "sched/fair")));
    await waitFor(async () => running(gpu).length === 1);
    const lone = await create(b.client, "sched/fair", { priority: "normal" });
    expect(((await b.client.runs.get(lone)) as { queue_position: number }).queue_position).toBe(1);
    await finishInTurn([gpu], async () => gpu.puts.some((p) => p.id === lone));
    const order = gpu.puts.filter((p) => p.started).map((p) => p.id);
    expect(order.indexOf(lone)).toBeLessThanOrEqual(2);
    await finishInTurn([gpu], async () =>
      (await Promise.all(burst.map((id) => a.client.runs.get(id)))).every((v) => v.status === "COMPLETED"),
    );
  });

  it("when a slow model has a backlog of 10x WORKER_CONCURRENCY runs, then a fast model's and echo's runs still complete at once", async () => {
    const slow = await fakeCog({ behaviour: { delayMs: 600_000 } });
    const fast = await fakeCog({ behaviour: { delayMs: 20 } });
    await cogModel("sched/backlog", [slow]);
    await cogModel("sched/quick", [fast]);
    const { client } = await service.account(100_000);
    const backlog = await Promise.all(Array.from({ length: 40 }, () => create(client, "sched/backlog")));
    await waitFor(async () => running(slow).length === 1);
    const quick = await create(client, "sched/quick");
    expect((await until(client, quick, ["COMPLETED", "FAILED"])).status).toBe("COMPLETED");
    const echo = await client.runs.create("acme/echo", { input: { prompt: "hi" } });
    expect((await until(client, echo.run_id, ["COMPLETED", "FAILED"])).status).toBe("COMPLETED");
    // The backlog still waits: nothing of it moved meanwhile.
    expect((await client.models.get("sched/backlog")).queue_length).toBe(39);
    for (const id of backlog) await client.runs.cancel(id).catch(() => {});
  });

  it("when a run is canceled while QUEUED, then it never reaches a server and is refunded in full", async () => {
    const gpu = await fakeCog({ behaviour: { delayMs: 600_000 } });
    await cogModel("sched/cancel", [gpu]);
    const { client, accountId } = await service.account(100);
    const first = await create(client, "sched/cancel");
    await waitFor(async () => running(gpu).length === 1);
    const waiting = await create(client, "sched/cancel");
    expect((await client.runs.get(waiting)).status).toBe("QUEUED");
    const canceled = await client.runs.cancel(waiting);
    expect(canceled.status).toBe("CANCELED");
    gpu.finish(first);
    expect((await until(client, first, ["COMPLETED"])).tokens_charged).toBe(5);
    expect(gpu.puts.map((p) => p.id)).toEqual([first]);
    expect(await client.runs.get(waiting)).toMatchObject({ status: "CANCELED", tokens_charged: 0 });
    expect((await ledgerTotals(service.database.db, accountId)).cached).toEqual({ balance: 95, reserved: 0 });
    expect((await client.models.get("sched/cancel")).in_flight).toBe(0);
  });

  it("when an account is limited to 2 runs at once, then concurrent creations through two API processes never execute more than 2", async () => {
    const gpu = await fakeCog({ concurrency: 6, behaviour: { delayMs: 600_000 } });
    await cogModel("sched/limited", [gpu], { runner: { concurrency: 6 } });
    const { client, accountId, liveKey } = await service.account(10_000);
    await runCommand(
      service.database.db,
      ["accounts", "set-limits", accountId, "--max-concurrent-runs", "2"],
      () => {},
      { API_KEYS_PER_MODE_MAX: 20 },
    );
    const other = new ModelRunClient({ apiKey: liveKey, baseUrl: secondApi });
    expect((await other.account.get()).max_concurrent_runs).toBe(2);
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(i % 2 ? other : client, "sched/limited")),
    );
    await waitFor(async () => running(gpu).length === 2);
    // Another account is not held back by this one's limit.
    const { client: neighbour } = await service.account(1_000);
    const theirs = await create(neighbour, "sched/limited");
    await waitFor(async () => running(gpu).length === 3);
    gpu.finish(theirs);
    const statuses = await Promise.all(ids.map((id) => client.runs.get(id)));
    expect(statuses.filter((v) => v.status === "EXECUTING")).toHaveLength(2);
    await finishInTurn([gpu], async () =>
      (await Promise.all(ids.map((id) => client.runs.get(id)))).every((v) => v.status === "COMPLETED"),
    );
    const mine = [...gpu.predictions.values()].filter((p) => ids.includes(p.id));
    const edges = mine.flatMap((p) => [
      [p.startedAt, 1],
      [p.endedAt!, -1],
    ]);
    edges.sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
    let now = 0;
    let most = 0;
    for (const [, d] of edges) most = Math.max(most, (now += d!));
    expect(most).toBe(2);
  });

  it("when a key is limited to 1 run at once, then creations through two API processes never execute more than 1 of its runs, and the account's other key is not held back", async () => {
    const gpu = await fakeCog({ concurrency: 4, behaviour: { delayMs: 600_000 } });
    await cogModel("sched/keylimit", [gpu], { runner: { concurrency: 4 } });
    const { client, accountId } = await service.account(10_000);
    const lines: string[] = [];
    await runCommand(
      service.database.db,
      ["keys", "create", "--account", accountId, "--mode", "live", "--max-concurrent-runs", "1", "--json"],
      (line) => lines.push(line),
      { API_KEYS_PER_MODE_MAX: 20 },
    );
    const { key } = JSON.parse(lines[0]!) as { key: string };
    const limited = [service.base, secondApi].map((baseUrl) => new ModelRunClient({ apiKey: key, baseUrl }));
    expect((await limited[1]!.account.get()).key?.max_concurrent_runs).toBe(1);
    const ids = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create(limited[i % 2]!, "sched/keylimit")),
    );
    await waitFor(async () => running(gpu).length === 1);
    // The account's unlimited key takes the free slots meanwhile.
    const free = await Promise.all(Array.from({ length: 3 }, () => create(client, "sched/keylimit")));
    await waitFor(async () => running(gpu).length === 4, { what: "the other key's runs to start" });
    for (const id of free) gpu.finish(id);
    const statuses = (await Promise.all(ids.map((id) => limited[0]!.runs.get(id)))).map((v) => v.status);
    expect(statuses.filter((st) => st === "EXECUTING")).toHaveLength(1);
    expect(statuses.filter((st) => st === "QUEUED")).toHaveLength(5);
    await finishInTurn([gpu], async () =>
      (await Promise.all(ids.map((id) => client.runs.get(id)))).every((v) => v.status === "COMPLETED"),
    );
    const mine = [...gpu.predictions.values()].filter((p) => ids.includes(p.id));
    expect(mine).toHaveLength(6);
    for (const p of mine)
      for (const q of mine)
        if (p !== q) expect(p.endedAt! <= q.startedAt || q.endedAt! <= p.startedAt).toBe(true);
  });

  it("when an operator raises a waiting account's limit, then more of its runs start without a new creation", async () => {
    const gpu = await fakeCog({ concurrency: 4, behaviour: { delayMs: 600_000 } });
    await cogModel("sched/raised", [gpu], { runner: { concurrency: 4 } });
    const { client, accountId } = await service.account(1_000);
    const limits = (n: string) =>
      runCommand(
        service.database.db,
        ["accounts", "set-limits", accountId, "--max-concurrent-runs", n],
        () => {},
        {
          API_KEYS_PER_MODE_MAX: 20,
        },
      );
    await limits("1");
    const ids = await Promise.all(Array.from({ length: 4 }, () => create(client, "sched/raised")));
    await waitFor(async () => running(gpu).length === 1);
    await limits("3");
    await waitFor(async () => running(gpu).length === 3, { what: "the raised limit to start two more" });
    await finishInTurn([gpu], async () =>
      (await Promise.all(ids.map((id) => client.runs.get(id)))).every((v) => v.status === "COMPLETED"),
    );
  });

  it("when runs wait longer than their model's execution timeout, then none times out: the timeout counts from EXECUTING", async () => {
    const gpu = await fakeCog({ behaviour: { delayMs: 700 } });
    await cogModel("sched/timeout", [gpu], { execution_timeout_ms: 2_000 });
    const { client } = await service.account(1_000);
    const ids = await Promise.all(Array.from({ length: 5 }, () => create(client, "sched/timeout")));
    const ended = await Promise.all(ids.map((id) => until(client, id, ["COMPLETED", "FAILED"])));
    expect(ended.map((r) => r.status)).toEqual(Array(5).fill("COMPLETED"));
    for (const run of ended) expect(run.duration_ms).toBeLessThan(2_000);
    // The last of them waited longer than the timeout in all.
    const lifetimes = ended.map((run) => Date.parse(run.completed_at!) - Date.parse(run.created_at!));
    expect(Math.max(...lifetimes)).toBeGreaterThan(2_000);
  });

  it("when a model has a queue cap, then the run past it is answered 429 MODEL_QUEUE_FULL with Retry-After", async () => {
    const gpu = await fakeCog({ behaviour: { delayMs: 600_000 } });
    await cogModel("sched/capped", [gpu], { max_queue: 2 });
    const { client } = await service.account(1_000);
    const first = await create(client, "sched/capped");
    await waitFor(async () => running(gpu).length === 1);
    const waiting = [await create(client, "sched/capped"), await create(client, "sched/capped")];
    const refused = await create(client, "sched/capped").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ModelRunError);
    expect((refused as ModelRunError).code).toBe("MODEL_QUEUE_FULL");
    expect((refused as ModelRunError).retryAfterMs).toBeGreaterThanOrEqual(1_000);
    for (const id of [first, ...waiting]) await client.runs.cancel(id);
  });

  it("when a worker holding leases is SIGKILLed, then its slots come back, no prediction runs twice and nothing is charged twice", async () => {
    const [one, two] = [
      await fakeCog({ behaviour: { delayMs: 600_000 } }),
      await fakeCog({ behaviour: { delayMs: 600_000 } }),
    ];
    await cogModel("sched/crash", [one!, two!]);
    const { client, accountId } = await service.account(1_000);
    const ids = await Promise.all(Array.from({ length: 6 }, () => create(client, "sched/crash")));
    await waitFor(async () => running(one!).length + running(two!).length === 2);
    const executing = [...running(one!), ...running(two!)].map((p) => p.id);
    // The worker executing one of them (not the one that may have sent it ahead of its job).
    const executes = (l: Record<string, unknown>) =>
      ((l.message === "cog prediction started" && !l.early) || l.message === "cog prediction continued") &&
      executing.includes(l.prediction_id as string);
    const holder = await waitFor(async () => workers.find((w) => w.app.lines.some(executes)));
    holder.app.child.kill("SIGKILL");
    await holder.app.exited;
    balancer.targets.splice(balancer.targets.indexOf(holder.port), 1);
    workers.splice(workers.indexOf(holder), 1);
    await startWorker();
    // The run taken over re-attaches to its prediction (a PUT that starts nothing), then all end.
    await waitFor(async () => [one!, two!].some((c) => c.puts.some((p) => !p.started)), {
      what: "a worker to re-attach",
      timeoutMs: 30_000,
    });
    await finishInTurn([one!, two!], async () =>
      (await Promise.all(ids.map((id) => client.runs.get(id)))).every((v) => v.status === "COMPLETED"),
    );
    expect(startedTwice([one!, two!], [...holder.app.lines, ...workerLines()])).toEqual([]);
    expect(peak(one!)).toBe(1);
    expect(peak(two!)).toBe(1);
    expect(await service.database.db.ledgerEntry.count({ where: { accountId, kind: "CHARGE" } })).toBe(6);
    expect((await ledgerTotals(service.database.db, accountId)).cached).toEqual({
      balance: 970,
      reserved: 0,
    });
    // Every slot comes back: the last run's release follows its settlement, which the client
    // may read first.
    await waitFor(
      async () => {
        const model = await client.models.get("sched/crash");
        return model.in_flight === 0 && model.queue_length === 0;
      },
      { what: "the model's slots to come back" },
    );
  });
});
