import { PassThrough } from "node:stream";
import type { KeyBudget } from "@svc/core";
import {
  createApiKey,
  createEndpoint,
  grantTokens,
  ledgerTotals,
  loadCatalogue,
  seedCatalogue,
  setLowBalanceThreshold,
  sqlPool,
  updateAccountKey,
} from "@svc/db";
import { createLogger } from "@svc/logger";
import {
  createDeadlinesQueue,
  createDeliveriesQueue,
  createRedis,
  createRunEventHub,
  createLeasedRunsQueue,
  createRunsQueue,
  queueIndex,
  whenRedisReady,
  type RedisClient,
  type RunsQueue,
  type Scheduler,
} from "@svc/queue";
import {
  createAccountWithKeys,
  createTestDatabase,
  deleteRedisPrefix,
  testQueuePrefix,
  TEST_REDIS_URL,
  waitFor,
  type TestDatabase,
} from "@svc/testkit";
import type { CreateRunCommand, RunLifecycle } from "./lifecycle.js";
import { wireRuns } from "./wiring.js";
import { createProgressRecorder, type ProgressRecorder } from "./progress.js";

// Batching must change nothing a client can see: every answer and every ledger entry is what
// applying the same runs one by one would give. Real Postgres and Redis; a wide group-commit
// window so that concurrent calls really share batches.
describe("run lifecycle (group commit)", () => {
  let database: TestDatabase;
  let redis: RedisClient;
  let runs: RunLifecycle;
  let progress: ProgressRecorder;
  let scheduler: Scheduler;
  let wire: (settings?: Partial<Parameters<typeof wireRuns>[0]>) => ReturnType<typeof wireRuns>;
  let runsQueue: RunsQueue;
  const prefix = testQueuePrefix();
  const priceOf = { "acme/pixel-hq": 5, "acme/pixel/fast": 2 } as const;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedCatalogue(database.db, await loadCatalogue());
    redis = createRedis(TEST_REDIS_URL, "worker");
    await whenRedisReady(redis, 2_000);
    runsQueue = createRunsQueue(redis, prefix);
    const leasedQueue = createLeasedRunsQueue(redis, prefix);
    const deliveriesQueue = createDeliveriesQueue(redis, prefix);
    const deadlinesQueue = createDeadlinesQueue(redis, prefix);
    const logger = createLogger({ service: "test", level: "warn", stream: new PassThrough() });
    // A lifecycle as a process wires it; a second call is another process (its own pipelines).
    wire = (settings = {}) =>
      wireRuns(
        {
          QUEUE_PREFIX: prefix,
          GROUP_COMMIT_WINDOW_MS: 20,
          GROUP_COMMIT_SETTLE_WINDOW_MS: 20,
          GROUP_COMMIT_BATCH_WINDOW_MS: 20,
          GROUP_COMMIT_MAX_BATCH: 500,
          GROUP_COMMIT_IN_FLIGHT: 2,
          RUN_EVENTS_RETENTION_SECONDS: 60,
          SCHEDULER_LEASE_MS: 60_000,
          ACCOUNT_MAX_CONCURRENT_RUNS: 50,
          WEIGHTS_ROUTING_WAIT_MS: 2_000,
          ...settings,
        },
        {
          db: database.db,
          redis,
          logger,
          queues: {
            runs: () => runsQueue,
            leased: () => leasedQueue,
            deliveries: () => deliveriesQueue,
            deadlines: () => deadlinesQueue,
          },
        },
      );
    const wired = wire();
    runs = wired.lifecycle;
    scheduler = wired.scheduler;
    const transport = wired.transport;
    progress = createProgressRecorder({ db: database.db, recordEvents: transport.recordEvents, logger });
  });
  afterAll(async () => {
    await runs.drain();
    await deleteRedisPrefix(prefix);
    redis.disconnect();
    await database.drop();
  });

  /** Sets a key's spend budget as its owner would (the key cap does not come into it). */
  const setBudget = (accountId: string, keyId: string, budget: KeyBudget) =>
    updateAccountKey(database.db, accountId, keyId, { budget }, 100);

  async function liveAccount(tokens: number) {
    const { account, liveKeyId } = await createAccountWithKeys(database.db, tokens);
    const command = (
      model: keyof typeof priceOf,
      extra: Partial<CreateRunCommand> = {},
    ): CreateRunCommand => ({
      accountId: account.id,
      apiKeyId: liveKeyId,
      mode: "live",
      model: {
        id: model,
        status: "active",
        pricing: { unit: "image", tokens_per_unit: priceOf[model], units_from: "num_images" },
        runner: { kind: "builtin", generator: "image", delay_ms: 0 },
      },
      account: { weight: 1, maxConcurrentRuns: null },
      priority: "normal",
      input: { prompt: "p", num_images: 1 },
      body: {},
      webhookUrl: null,
      webhookEventsFilter: null,
      cancelAfterMs: null,
      idempotencyKey: null,
      ...extra,
    });
    return { account, command };
  }

  const expectLedgerExact = async (accountId: string) => {
    const totals = await ledgerTotals(database.db, accountId);
    expect(totals.cached).toEqual(totals.ledger);
    return totals.cached;
  };

  it("when 3N creations race for N runs' tokens, then exactly N are created and available never goes below 0", async () => {
    const n = 20;
    const { account, command } = await liveAccount(n * 5);
    const results = await Promise.all(
      Array.from({ length: 3 * n }, () => runs.create(command("acme/pixel-hq"))),
    );
    expect(results.filter((r) => r.kind === "created")).toHaveLength(n);
    expect(results.filter((r) => r.kind === "insufficient")).toHaveLength(2 * n);
    expect(await expectLedgerExact(account.id)).toEqual({ balance: n * 5, reserved: n * 5 });
    expect(await database.db.run.count({ where: { accountId: account.id } })).toBe(n);
  });

  it("when a batch holds more than the account can cover, then each run gets the answer it would get alone, in order", async () => {
    // 7 tokens, one by one: 5 fits (2 left), 5 is refused, 2 fits (0 left), 2 is refused.
    const { account, command } = await liveAccount(7);
    const order = ["acme/pixel-hq", "acme/pixel-hq", "acme/pixel/fast", "acme/pixel/fast"] as const;
    const results = await Promise.all(order.map((m) => runs.create(command(m))));
    expect(results.map((r) => r.kind)).toEqual(["created", "insufficient", "created", "insufficient"]);
    expect(await expectLedgerExact(account.id)).toEqual({ balance: 7, reserved: 7 });
  });

  it("when one Idempotency-Key arrives several times in one batch, then one run is made and the others replay it", async () => {
    const { account, command } = await liveAccount(100);
    const keyed = command("acme/pixel/fast", { idempotencyKey: "order-1", body: { input: { n: 1 } } });
    const results = await Promise.all([runs.create(keyed), runs.create(keyed), runs.create(keyed)]);
    const ids = new Set(results.map((r) => ("run" in r ? r.run.id : r.kind)));
    expect(ids.size).toBe(1);
    expect(results.map((r) => r.kind).sort()).toEqual(["created", "replayed", "replayed"]);
    const reused = await runs.create({ ...keyed, body: { input: { n: 2 } } });
    expect(reused.kind).toBe("key_reused");
    expect(await expectLedgerExact(account.id)).toEqual({ balance: 100, reserved: 2 });
  });

  it("when two processes create with one Idempotency-Key at once and the twin commits while the other's statement waits, then one run is made and the other replays it", async () => {
    const { account, command } = await liveAccount(100);
    const keyed = command("acme/pixel/fast", { idempotencyKey: "order-twins", body: { input: { n: 1 } } });
    const other = wire().lifecycle;
    // Both statements read the key as free, then wait for the account row held here; the first to
    // get it inserts and commits, and the second's insert then meets the twin on the unique index.
    const holder = await sqlPool(database.db).connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE", [account.id]);
      const both = Promise.all([runs.create(keyed), other.create(keyed)]);
      // Read on another connection: within the holder's transaction the view is a snapshot.
      await waitFor(
        async () =>
          (
            await sqlPool(database.db).query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
          ).rows[0]!.n >= 2,
        { what: "both creation statements waiting for the account row" },
      );
      await holder.query("COMMIT");
      const results = await both;
      expect(results.map((r) => r.kind).sort()).toEqual(["created", "replayed"]);
      expect(new Set(results.map((r) => ("run" in r ? r.run.id : r.kind))).size).toBe(1);
    } finally {
      holder.release();
      await other.drain();
    }
    expect(await database.db.run.count({ where: { accountId: account.id } })).toBe(1);
    expect(await expectLedgerExact(account.id)).toEqual({ balance: 100, reserved: 2 });
  });

  it("when a keyed request is repeated after the tokens ran out or the model was retired, then it replays the run", async () => {
    // Keys are looked up only when the creation statement finds them taken: a replay must not be
    // refused for what a new run would be.
    const { account, command } = await liveAccount(5);
    const keyed = command("acme/pixel-hq", { idempotencyKey: "order-2", body: { input: { n: 1 } } });
    const first = await runs.create(keyed);
    expect(first.kind).toBe("created");
    const broke = await runs.create(keyed);
    expect(broke).toMatchObject({ kind: "replayed", run: { id: first.kind === "created" && first.run.id } });
    const retired = await runs.create({ ...keyed, model: { ...keyed.model, status: "deprecated" } });
    expect(retired).toMatchObject({
      kind: "replayed",
      run: { id: first.kind === "created" && first.run.id },
    });
    expect(await runs.create(command("acme/pixel-hq"))).toMatchObject({ kind: "insufficient" });
    expect(await expectLedgerExact(account.id)).toEqual({ balance: 5, reserved: 5 });
  });

  it("when a batch of runs is created, started and finished, then each run's events are recorded in order and the model's queue holds them", async () => {
    const { command } = await liveAccount(1000);
    const hub = createRunEventHub(redis, prefix, (error) => {
      throw error;
    });
    const index = queueIndex(redis, prefix, scheduler, async () => 0);
    try {
      // Earlier tests left runs of this model queued (no worker gives them slots here).
      const waiting = (await index.model("acme/pixel/fast", true)).queueLength;
      const created = await Promise.all(
        Array.from({ length: 5 }, () => runs.create(command("acme/pixel/fast"))),
      );
      const ids = created.map((r) => (r.kind === "created" ? r.run.id : ""));
      await runs.drain();
      expect((await index.model("acme/pixel/fast", true)).queueLength).toBe(waiting + 5);
      // One account's runs stand in creation order, one place apart (no other account waits more).
      const created_at = new Map(
        (await database.db.run.findMany({ where: { id: { in: ids } } })).map((r) => [r.id, r.createdAt]),
      );
      const ahead = await Promise.all(
        ids.map(
          async (id) =>
            (await index.place({ id, modelId: "acme/pixel/fast", createdAt: created_at.get(id)! }, true))!
              .ahead,
        ),
      );
      const byPlace = [...ids].sort((a, b) => ahead[ids.indexOf(a)]! - ahead[ids.indexOf(b)]!);
      expect(new Set(ahead).size).toBe(5);
      expect(byPlace.map((id) => created_at.get(id)!.getTime())).toEqual(
        [...byPlace].map((id) => created_at.get(id)!.getTime()).sort((a, b) => a - b),
      );
      const started = (await runs.start(ids[0]!))!;
      await runs.finish(started, { to: "COMPLETED", output: { images: [] }, units: 1 });
      await runs.drain();
      const events = await hub.history(ids[0]!);
      expect(events.map((e) => e.event.type === "status" && e.event.status)).toEqual([
        "QUEUED",
        "EXECUTING",
        "COMPLETED",
      ]);
      expect((await index.model("acme/pixel/fast", true)).runTimeP50Ms).toEqual(expect.any(Number));
    } finally {
      await hub.close();
    }
  });

  it("when cancels and completions of the same runs arrive together, then each run settles exactly once", async () => {
    const { account, command } = await liveAccount(1000);
    const created = await Promise.all(
      Array.from({ length: 30 }, () => runs.create(command("acme/pixel-hq"))),
    );
    const ids = created.map((r) => (r.kind === "created" ? r.run.id : ""));
    const started = await Promise.all(ids.map((id) => runs.start(id)));
    expect(started.every(Boolean)).toBe(true);
    const owner = { accountId: account.id, mode: "live" as const };
    const outcomes = await Promise.all(
      started.flatMap((run) => [
        runs
          .finish(run!, { to: "COMPLETED", output: { images: [] }, units: 1 })
          .then((s) => (s ? "completed" : "lost")),
        runs.cancel(owner, run!.id).then((c) => c.kind),
        runs.cancel(owner, run!.id).then((c) => c.kind),
      ]),
    );
    for (let i = 0; i < ids.length; i++) {
      const [completion, cancelA, cancelB] = outcomes.slice(i * 3, i * 3 + 3);
      const winners = [completion === "completed", cancelA === "canceled", cancelB === "canceled"].filter(
        Boolean,
      );
      expect(winners).toHaveLength(1);
      const settlements = await database.db.ledgerEntry.count({
        where: { runId: ids[i], kind: { in: ["CHARGE", "RELEASE"] } },
      });
      expect(settlements).toBe(1); // completed: CHARGE 5 of 5; canceled: RELEASE 5
    }
    const completed = outcomes.filter((o) => o === "completed").length;
    expect(await expectLedgerExact(account.id)).toEqual({ balance: 1000 - 5 * completed, reserved: 0 });
  });

  it("when starts and settlements that hold up nothing (the patient lane) arrive apart, then they share statements, while prompt ones each go alone", async () => {
    const { account, command } = await liveAccount(1000);
    // Prompt transitions go at once; patient ones wait up to 200 ms for company.
    const { lifecycle } = wire({
      GROUP_COMMIT_WINDOW_MS: 0,
      GROUP_COMMIT_SETTLE_WINDOW_MS: 0,
      GROUP_COMMIT_BATCH_WINDOW_MS: 200,
    });
    const created = await Promise.all(
      Array.from({ length: 9 }, () => lifecycle.create(command("acme/pixel/fast"))),
    );
    const [first, ...ids] = created.map((r) => (r.kind === "created" ? r.run.id : ""));
    await lifecycle.start(first!); // its statement prepared: the next ones take a few ms
    const apart = <T>(items: string[], fn: (id: string) => Promise<T>) =>
      Promise.all(items.map(async (id, i) => (await new Promise((r) => setTimeout(r, i * 25)), fn(id))));
    const prompt = await apart(ids.slice(0, 4), (id) => lifecycle.start(id, "prompt"));
    const patient = await apart(ids.slice(4), (id) => lifecycle.start(id, "patient"));
    // One statement, one transaction: the same started_at (the database's now()) for its runs.
    expect(new Set(prompt.map((r) => r!.startedAt.getTime())).size).toBe(4);
    expect(new Set(patient.map((r) => r!.startedAt.getTime())).size).toBe(1);
    const ended = await apart(ids.slice(4), async (id) => {
      const run = patient.find((r) => r!.id === id)!;
      return lifecycle.finish(run, { to: "COMPLETED", output: { images: [] }, units: 1 }, "patient");
    });
    expect(ended.map((s) => s?.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED", "COMPLETED"]);
    await lifecycle.drain();
    const charged = await database.db.run.findMany({ where: { id: { in: ids.slice(4) } } });
    expect(charged.map((r) => r.tokensCharged)).toEqual([2, 2, 2, 2]);
    expect(await expectLedgerExact(account.id)).toEqual({ balance: 1000 - 4 * 2, reserved: 5 * 2 });
  });

  it("when a mixed load of creations, starts, completions, failures and time-outs runs at once, then the cached sums equal the ledger", async () => {
    const { account, command } = await liveAccount(400);
    const work = Array.from({ length: 60 }, async (_, i) => {
      const created = await runs.create(command(i % 2 ? "acme/pixel-hq" : "acme/pixel/fast"));
      if (created.kind !== "created") return;
      const run = await runs.start(created.run.id);
      if (!run) return;
      if (i % 3 === 0) await runs.finish(run, { to: "COMPLETED", output: {}, units: 1 });
      else if (i % 3 === 1)
        await runs.finish(run, { to: "FAILED", errorCode: "MODEL_ERROR", errorMessage: "no" });
      else await runs.timeOut(run);
    });
    await Promise.all(work);
    await expectLedgerExact(account.id);
    const reservations = await database.db.run.aggregate({
      where: { accountId: account.id },
      _sum: { reservedTokens: true },
    });
    expect((await ledgerTotals(database.db, account.id)).cached.reserved).toBe(
      reservations._sum.reservedTokens ?? 0,
    );
  });

  describe("key budgets and spend alerts", () => {
    const keyRow = (id: string) => database.db.apiKey.findUniqueOrThrow({ where: { id } });

    it("when 3N creations race for a key budget of N runs, then exactly N are created and the others are refused for the budget, not the balance", async () => {
      const n = 15;
      const { account, command } = await liveAccount(10_000);
      const keyId = command("acme/pixel-hq").apiKeyId;
      await setBudget(account.id, keyId, { tokens: n * 5, period: "day" });
      const other = (await createApiKey(database.db, account.id, "live", "other", 100))!.record.id;
      const results = await Promise.all([
        ...Array.from({ length: 3 * n }, () => runs.create(command("acme/pixel-hq"))),
        // The account's other key has no budget: its runs are not held back by this one's.
        ...Array.from({ length: 5 }, () => runs.create(command("acme/pixel-hq", { apiKeyId: other }))),
      ]);
      const mine = results.slice(0, 3 * n);
      expect(mine.filter((r) => r.kind === "created")).toHaveLength(n);
      const refused = mine.filter((r) => r.kind === "over_budget");
      expect(refused).toHaveLength(2 * n);
      expect(refused[0]).toMatchObject({ needed: 5, budget: { tokens: n * 5, period: "day", used: n * 5 } });
      expect(results.slice(3 * n).every((r) => r.kind === "created")).toBe(true);
      expect((await keyRow(keyId)).budgetUsed).toBe(n * 5);
      expect(await expectLedgerExact(account.id)).toEqual({ balance: 10_000, reserved: (n + 5) * 5 });
    });

    it("when a budgeted key's runs end, then what they released goes back to its budget and what they were charged stays counted", async () => {
      const { account, command } = await liveAccount(1_000);
      const keyId = command("acme/pixel-hq").apiKeyId;
      await setBudget(account.id, keyId, { tokens: 30, period: "month" });
      const made = await Promise.all(
        Array.from({ length: 3 }, () =>
          runs.create(command("acme/pixel-hq", { input: { prompt: "p", num_images: 2 } })),
        ),
      );
      const [a, b, c] = made.map((r) => (r.kind === "created" ? r.run.id : ""));
      expect((await keyRow(keyId)).budgetUsed).toBe(30);
      expect((await runs.create(command("acme/pixel/fast"))).kind).toBe("over_budget");
      // Canceled while queued: all 10 back. Completed with 1 image of 2: 5 charged, 5 back.
      expect((await runs.cancel({ accountId: account.id, mode: "live" }, a!)).kind).toBe("canceled");
      const started = await runs.start(b!);
      expect(
        await runs.finish(started!, { to: "COMPLETED", output: { images: [] }, units: 1 }),
      ).not.toBeNull();
      expect((await keyRow(keyId)).budgetUsed).toBe(15);
      expect(
        (await runs.create(command("acme/pixel-hq", { input: { prompt: "p", num_images: 3 } }))).kind,
      ).toBe("created");
      expect((await keyRow(keyId)).budgetUsed).toBe(30);
      // A budget set again counts the key's runs of the period: c (10 reserved), b (5 charged), the last (15).
      await setBudget(account.id, keyId, { tokens: 31, period: "day" });
      expect((await keyRow(keyId)).budgetUsed).toBe(30);
      expect(c).toBeTruthy();
    });

    it("when reservations take an account below its low-balance threshold, then account.balance_low is recorded once per crossing, armed again by a grant", async () => {
      const { account, command } = await liveAccount(100);
      await setLowBalanceThreshold(database.db, account.id, 50);
      const endpoint = await createEndpoint(
        database.db,
        { accountId: account.id, mode: "live" },
        {
          url: "https://example.com/alerts",
          events: ["account.balance_low", "run.completed"],
          secretEnc: "x",
        },
        10,
      );
      // 100 -> 55 (above), then down to 35: one crossing, however the later reservations are batched.
      await Promise.all(Array.from({ length: 9 }, () => runs.create(command("acme/pixel-hq"))));
      await Promise.all(Array.from({ length: 4 }, () => runs.create(command("acme/pixel-hq"))));
      const alerts = () =>
        database.db.delivery.findMany({
          where: { accountId: account.id, event: "account.balance_low" },
          orderBy: { createdAt: "asc" },
        });
      expect(await alerts()).toHaveLength(1);
      const body = JSON.parse((await alerts())[0]!.body);
      expect(body).toMatchObject({
        event: "account.balance_low",
        webhook_id: endpoint!.id,
        data: { threshold: 50 },
      });
      // What the reservation that crossed left: 45 or less, as the four were batched.
      expect(body.data.available_tokens).toBeLessThanOrEqual(45);
      expect(body.data.available_tokens).toBeGreaterThanOrEqual(35);
      expect(body.data.timestamp).toBe(body.created_at);
      expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
      await grantTokens(database.db, account.id, 100); // 135 available: armed again
      await Promise.all(Array.from({ length: 18 }, () => runs.create(command("acme/pixel-hq"))));
      expect(await alerts()).toHaveLength(2);
      expect(JSON.parse((await alerts())[1]!.body).data.available_tokens).toBeLessThan(50);
    });

    it("when a key's budget refuses runs again and again, then key.budget_reached is recorded once for the period", async () => {
      const { account, command } = await liveAccount(1_000);
      const keyId = command("acme/pixel-hq").apiKeyId;
      await setBudget(account.id, keyId, { tokens: 12, period: "total" });
      await createEndpoint(
        database.db,
        { accountId: account.id, mode: "live" },
        { url: "https://example.com/alerts", events: ["key.budget_reached"], secretEnc: "x" },
        10,
      );
      const results = await Promise.all(
        Array.from({ length: 6 }, () => runs.create(command("acme/pixel-hq"))),
      );
      expect(results.filter((r) => r.kind === "over_budget")).toHaveLength(4);
      expect((await runs.create(command("acme/pixel-hq"))).kind).toBe("over_budget");
      const sent = await database.db.delivery.findMany({
        where: { accountId: account.id, event: "key.budget_reached" },
      });
      expect(sent).toHaveLength(1);
      expect(JSON.parse(sent[0]!.body)).toMatchObject({
        event: "key.budget_reached",
        data: {
          key_id: keyId,
          key_name: "live key",
          budget_tokens: 12,
          period: "total",
          used_tokens: 10,
          needed_tokens: 5,
          resets_at: null,
        },
      });
      // A new budget is a new allowance: reaching it is reported again.
      await setBudget(account.id, keyId, { tokens: 14, period: "total" });
      expect((await runs.create(command("acme/pixel-hq"))).kind).toBe("over_budget");
      expect(
        await database.db.delivery.count({ where: { accountId: account.id, event: "key.budget_reached" } }),
      ).toBe(2);
    });
  });

  describe("instant runs (acme/echo): executed from their job, started and ended in one transition", () => {
    const echo = {
      id: "acme/echo",
      status: "active",
      pricing: { unit: "run", tokens_per_unit: 1 }, // as the catalogue has it
      runner: { kind: "builtin" as const, generator: "echo" as const, delay_ms: 0 },
    };
    async function instantRun(extra: Partial<CreateRunCommand> = {}) {
      const { account, command } = await liveAccount(100);
      const created = await runs.create({
        ...command("acme/pixel-hq"),
        model: echo,
        input: { prompt: "hi" },
        ...extra,
      });
      const id = created.kind === "created" ? created.run.id : "";
      const job = (await runsQueue.getJob(id))!;
      return { account, id, instant: job.data.instant! };
    }

    it("when an instant run is finished from its job, then it is started and completed at once, charged once, with both events and both webhooks", async () => {
      const { account, id, instant } = await instantRun({
        webhookUrl: "https://example.com/own",
        webhookEventsFilter: ["started", "completed"],
      });
      // Recorded at the settlement, which starts the run: an endpoint made meanwhile gets run.started.
      const endpoint = await createEndpoint(
        database.db,
        { accountId: account.id, mode: "live" },
        { url: "https://example.com/hooks", events: ["run.started", "run.completed"], secretEnc: "x" },
        10,
      );
      expect(instant).toMatchObject({ modelId: "acme/echo", reservedTokens: 1, unitsRequested: 1 });
      expect(JSON.parse(instant.input)).toEqual({ prompt: "hi" });
      const startedAt = new Date(Math.max(Date.now(), instant.createdAt));
      const settled = await runs.finishInstant({ id, ...instant }, startedAt, {
        to: "COMPLETED",
        output: { echo: { prompt: "hi" } },
        units: 1,
      });
      expect(settled).toMatchObject({ status: "COMPLETED", tokensCharged: 1, startedAt });
      const row = (await database.db.run.findUnique({ where: { id } }))!;
      expect(row).toMatchObject({
        status: "COMPLETED",
        attempts: 1,
        tokensCharged: 1,
        reservedTokens: 0,
        startedAt,
      });
      expect(row.completedAt!.getTime()).toBeGreaterThanOrEqual(startedAt.getTime());
      expect(await expectLedgerExact(account.id)).toEqual({ balance: 99, reserved: 0 });
      const deliveries = await database.db.delivery.findMany({
        where: { runId: id },
        orderBy: { createdAt: "asc" },
      });
      const started = deliveries.filter((d) => d.event === "run.started").map((d) => JSON.parse(d.body));
      const data = { run_id: id, model_id: "acme/echo", started_at: startedAt.toISOString() };
      expect(started).toEqual(
        expect.arrayContaining([
          { event: "run.started", data },
          {
            event: "run.started",
            webhook_id: endpoint!.id,
            data: { ...data, timestamp: startedAt.toISOString() },
            created_at: startedAt.toISOString(),
          },
        ]),
      );
      expect(deliveries.filter((d) => d.event === "run.completed")).toHaveLength(2);
      await runs.drain();
      const hub = createRunEventHub(redis, prefix, (error) => {
        throw error;
      });
      try {
        expect((await hub.history(id)).map((e) => e.event.type === "status" && e.event.status)).toEqual([
          "QUEUED",
          "EXECUTING",
          "COMPLETED",
        ]);
      } finally {
        await hub.close();
      }
      // The job delivered again finds the run ended: nothing moves.
      expect(
        await runs.finishInstant({ id, ...instant }, new Date(), { to: "COMPLETED", output: {}, units: 1 }),
      ).toBeNull();
      expect(await expectLedgerExact(account.id)).toEqual({ balance: 99, reserved: 0 });
    });

    it("when an instant run was canceled while queued, then its job ends nothing and it stays refunded", async () => {
      const { account, id, instant } = await instantRun();
      expect((await runs.cancel({ accountId: account.id, mode: "live" }, id)).kind).toBe("canceled");
      const outcome = { to: "COMPLETED" as const, output: {}, units: 1 };
      expect(await runs.finishInstant({ id, ...instant }, new Date(), outcome)).toBeNull();
      expect(await database.db.run.findUnique({ where: { id } })).toMatchObject({
        status: "CANCELED",
        startedAt: null,
      });
      expect(await expectLedgerExact(account.id)).toEqual({ balance: 100, reserved: 0 });
    });

    it("when a job's reservation is not the run's, then the transition misses and the run waits to be executed the usual way", async () => {
      const { account, id, instant } = await instantRun();
      const outcome = { to: "COMPLETED" as const, output: {}, units: 1 };
      expect(await runs.finishInstant({ id, ...instant, reservedTokens: 2 }, new Date(), outcome)).toBeNull();
      expect(await database.db.run.findUnique({ where: { id } })).toMatchObject({
        status: "QUEUED",
        attempts: 0,
      });
      const started = (await runs.start(id))!;
      expect(await runs.finish(started, outcome)).toMatchObject({ status: "COMPLETED", tokensCharged: 1 });
      expect(await expectLedgerExact(account.id)).toEqual({ balance: 99, reserved: 0 });
    });
  });

  describe("outputs delivered before a cancel", () => {
    const images = (n: number) => ({
      images: Array.from({ length: n }, (_, i) => `https://svc/files/out_x/${i}.png`),
    });
    const basis = { kind: "image" as const, unitsRequested: 4 };
    const progressEvents = async (runId: string) => {
      // Only history is read: the subscription that closes at once may fail, unheard.
      const hub = createRunEventHub(redis, prefix, () => {});
      try {
        return (await hub.history(runId)).filter((e) => e.event.type === "progress");
      } finally {
        await hub.close();
      }
    };

    it("when 3 of 4 images were shown and the run is canceled, then it is charged for 3 and refunded 1", async () => {
      const { account, command } = await liveAccount(100);
      const created = await runs.create(command("acme/pixel-hq", { input: { prompt: "p", num_images: 4 } }));
      const id = created.kind === "created" ? created.run.id : "";
      await runs.start(id);
      for (const n of [1, 2, 3]) progress.record(id, { completed: n, total: 4, output: images(n) }, basis);
      await progress.drain();
      expect((await runs.cancel({ accountId: account.id, mode: "live" }, id)).kind).toBe("canceled");
      const run = await database.db.run.findUniqueOrThrow({ where: { id } });
      expect([run.status, run.tokensCharged, run.unitsCompleted]).toEqual(["CANCELED", 15, 3]);
      const ledger = await database.db.ledgerEntry.findMany({
        where: { runId: id },
        orderBy: { kind: "asc" },
      });
      expect(ledger.map((e) => [e.kind, e.amount]).sort()).toEqual([
        ["CHARGE", 15],
        ["RELEASE", 5],
        ["RESERVE", 20],
      ]);
      expect(await expectLedgerExact(account.id)).toEqual({ balance: 85, reserved: 0 });
      expect(await progressEvents(id)).toHaveLength(3);
    });

    it("when the model's price changes while its runs wait or execute, then each run pays the price it was made at, however it ends", async () => {
      const { account, command } = await liveAccount(100);
      const made = async () => {
        const created = await runs.create(
          command("acme/pixel-hq", { input: { prompt: "p", num_images: 4 } }),
        );
        return created.kind === "created" ? created.run.id : "";
      };
      const [canceled, completed] = [await made(), await made()];
      // The catalogue's price moves tenfold after both were made and reserved (5 per image, 20 each).
      await database.db.model.update({
        where: { id: "acme/pixel-hq" },
        data: { pricing: { unit: "image", tokens_per_unit: 50, units_from: "num_images" } },
      });
      await runs.start(canceled);
      progress.record(canceled, { completed: 1, total: 4, output: images(1) }, basis);
      await progress.drain();
      expect((await runs.cancel({ accountId: account.id, mode: "live" }, canceled)).kind).toBe("canceled");
      const executing = (await runs.start(completed))!;
      expect(await runs.finish(executing, { to: "COMPLETED", output: images(2), units: 2 })).not.toBeNull();
      await runs.drain();
      const charged = await database.db.run.findMany({
        where: { id: { in: [canceled, completed] } },
        select: { id: true, tokensCharged: true },
      });
      expect(Object.fromEntries(charged.map((r) => [r.id, r.tokensCharged]))).toEqual({
        [canceled]: 5,
        [completed]: 10,
      });
      expect(await expectLedgerExact(account.id)).toEqual({ balance: 85, reserved: 0 });
    });

    it("when a report with outputs comes after the cancel, then it is never shown and nothing more is charged", async () => {
      const { account, command } = await liveAccount(100);
      const created = await runs.create(command("acme/pixel-hq", { input: { prompt: "p", num_images: 4 } }));
      const id = created.kind === "created" ? created.run.id : "";
      await runs.start(id);
      progress.record(id, { completed: 1, total: 4, output: images(1) }, basis);
      await progress.drain();
      await runs.cancel({ accountId: account.id, mode: "live" }, id);
      progress.record(id, { completed: 2, total: 4, output: images(2) }, basis);
      // A report without outputs (logs) is still shown.
      progress.record(id, { logs: "step 7" }, basis);
      await progress.drain();
      const shown = await progressEvents(id);
      expect(shown.map((e) => e.event.type === "progress" && e.event.data)).toEqual([
        { completed: 1, total: 4, output: images(1) },
        { logs: "step 7" },
      ]);
      const run = await database.db.run.findUniqueOrThrow({ where: { id } });
      expect([run.tokensCharged, run.unitsCompleted]).toEqual([5, 1]);
    });

    it("when cancels race reports that deliver more, then each cancel charges exactly what was shown before it settled", async () => {
      const { account, command } = await liveAccount(1000);
      const owner = { accountId: account.id, mode: "live" as const };
      const created = await Promise.all(
        Array.from({ length: 20 }, () =>
          runs.create(command("acme/pixel-hq", { input: { prompt: "p", num_images: 4 } })),
        ),
      );
      const ids = created.map((r) => (r.kind === "created" ? r.run.id : ""));
      await Promise.all(ids.map((id) => runs.start(id)));
      await Promise.all(
        ids.map(async (id, i) => {
          for (const n of [1, 2, 3, 4])
            progress.record(id, { completed: n, total: 4, output: images(n) }, basis);
          // Without its basis, as Cog's callbacks arrive: the recorder reads the run's model.
          if (i % 2) progress.record(id, { output: images(4) });
          await runs.cancel(owner, id);
        }),
      );
      await progress.drain();
      for (const id of ids) {
        const run = await database.db.run.findUniqueOrThrow({ where: { id } });
        const shown = await progressEvents(id);
        const delivered = Math.max(
          0,
          ...shown.map((e) =>
            e.event.type === "progress" ? (e.event.data.output as { images: string[] }).images.length : 0,
          ),
        );
        expect(run.unitsCompleted).toBe(delivered);
        expect(run.tokensCharged).toBe(5 * delivered);
      }
      await expectLedgerExact(account.id);
    });
  });
});
