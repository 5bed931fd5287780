import request from "supertest";
import { ledgerTotals, loadCatalogue, seedCatalogue } from "@svc/db";
import { createAccountWithKeys, DEAD_REDIS_URL, probeMedia, waitFor, type SpawnedApp } from "@svc/testkit";
import { PUBLIC_BASE_URL, setupE2E as setup, startWorker, stopWorker as stop, type E2E } from "./test/e2e.js";
import { startApi } from "./test/harness.js";

/** Resolves once the run is EXECUTING in the database (a worker has started it). */
const executing = (ctx: E2E, runId: string) =>
  waitFor(
    async () =>
      (await ctx.api.database.db.run.count({ where: { id: runId, status: "EXECUTING" } })) > 0 ? true : null,
    { what: `run ${runId} to be EXECUTING`, intervalMs: 20 },
  );

describe("runs end to end", () => {
  let ctx: E2E;
  let worker: SpawnedApp;

  beforeAll(async () => {
    ctx = await setup({
      CONTENT_POLICY_BLOCKLIST: "forbidden thing,another banned phrase",
      WORKER_CONCURRENCY: "4",
      // A queued run without a job is the sweeper's only after a second: long enough for a test
      // to act on a run before the sweeper does (the unreadable job record below).
      SWEEP_QUEUED_AFTER_MS: "1000",
    });
    worker = await startWorker(ctx.workerEnvFor());
  });
  afterAll(async () => {
    await stop(worker);
    await ctx.api.close();
  });

  const create = (key: string, model: string, input: object) =>
    request(ctx.api.app)
      .post(`/api/v1/models/${model}/run`)
      .set("Authorization", `Bearer ${key}`)
      .send({ input })
      .expect(201);
  const read = async (key: string, runId: string) =>
    (
      await request(ctx.api.app)
        .get(`/api/v1/runs/${runId}`)
        .set("Authorization", `Bearer ${key}`)
        .expect(200)
    ).body.data;
  const until = (key: string, runId: string, status: string) =>
    waitFor(
      async () => {
        const run = await read(key, runId);
        return run.status === status ? run : null;
      },
      { what: `run ${runId} to be ${status}` },
    );

  it("when a live run of 2 landscape images completes, then both URLs are 1024x576 PNGs and exactly 10 tokens are charged", async () => {
    const { account, liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const { run_id } = (
      await create(liveKey, "acme/pixel-hq", {
        prompt: "a harbour at dawn",
        num_images: 2,
        image_size: "landscape_16_9",
      })
    ).body.data;
    const executing = await until(liveKey, run_id, "EXECUTING");
    expect(executing).toEqual({
      run_id,
      status: "EXECUTING",
      model_id: "acme/pixel-hq",
      created_at: expect.any(String),
      started_at: expect.any(String),
    });
    const done = await until(liveKey, run_id, "COMPLETED");
    expect(done).toEqual({
      run_id,
      status: "COMPLETED",
      model_id: "acme/pixel-hq",
      output: { images: [expect.any(String), expect.any(String)] },
      tokens_charged: 10,
      created_at: executing.created_at,
      completed_at: expect.any(String),
      duration_ms: expect.any(Number),
    });
    expect(done.duration_ms).toBeGreaterThanOrEqual(3000);
    for (const url of done.output.images as string[]) {
      expect(url.startsWith(`${PUBLIC_BASE_URL}/files/out_`)).toBe(true);
      const file = await request(ctx.api.app).get(url.slice(PUBLIC_BASE_URL.length)).buffer(true).expect(200);
      expect(file.headers["content-type"]).toBe("image/png");
      const bytes = file.body as Buffer;
      expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([1024, 576]);
    }
    expect(done.output.images[0]).not.toBe(done.output.images[1]);
    const totals = await ledgerTotals(ctx.api.database.db, account.id);
    expect(totals.cached).toEqual({ balance: 90, reserved: 0 });
    expect(totals.ledger).toEqual(totals.cached);
  });

  it("when the same run is made with a test key, then it completes charged 0 and the balance is untouched", async () => {
    const { account, testKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const created = (
      await create(testKey, "acme/pixel/fast", {
        prompt: "a harbour at dawn",
        num_images: 2,
        image_size: "landscape_16_9",
      })
    ).body.data;
    expect(created.is_test_request).toBe(true);
    const done = await until(testKey, created.run_id, "COMPLETED");
    expect(done.tokens_charged).toBe(0);
    expect(done.output.images).toHaveLength(2);
    expect((await ledgerTotals(ctx.api.database.db, account.id)).cached).toEqual({
      balance: 100,
      reserved: 0,
    });
    expect(await ctx.api.database.db.ledgerEntry.count({ where: { runId: created.run_id } })).toBe(0);
  });

  it("when audio and video runs complete, then their files are a WAV and an H.264 MP4, charged per second", async () => {
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const audio = (await create(liveKey, "acme/voice/tone", { prompt: "rain", duration_seconds: 2 })).body
      .data;
    const video = (await create(liveKey, "acme/motion/clip", { prompt: "waves", duration_seconds: 1 })).body
      .data;
    const a = await until(liveKey, audio.run_id, "COMPLETED");
    const v = await until(liveKey, video.run_id, "COMPLETED");
    expect([a.tokens_charged, v.tokens_charged]).toEqual([2, 4]);
    const wav = await request(ctx.api.app)
      .get(a.output.audio[0].slice(PUBLIC_BASE_URL.length))
      .buffer(true)
      .expect(200);
    expect(wav.headers["content-type"]).toMatch(/audio\/(x-)?wav/);
    expect((wav.body as Buffer).toString("ascii", 8, 12)).toBe("WAVE");
    const mp4 = await request(ctx.api.app)
      .get(v.output.video[0].slice(PUBLIC_BASE_URL.length))
      .buffer(true)
      .parse((res, done) => {
        const parts: Buffer[] = [];
        res.on("data", (part: Buffer) => parts.push(part));
        res.on("end", () => done(null, Buffer.concat(parts)));
      })
      .expect(200);
    expect(mp4.headers["content-type"]).toBe("video/mp4");
    const probed = await probeMedia(mp4.body as Buffer);
    expect(probed.seconds).toBeCloseTo(1, 1);
    expect(probed.streams).toEqual([{ type: "video", codec: "h264", width: 320, height: 180 }]);
  });

  it("when an executing run is canceled, then the worker aborts it, it stays CANCELED and everything is refunded", async () => {
    const { account, liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const { run_id } = (await create(liveKey, "test/slow", { prompt: "slow boat", num_images: 2 })).body.data;
    await until(liveKey, run_id, "EXECUTING");
    const res = await request(ctx.api.app)
      .post(`/api/v1/runs/${run_id}/cancel`)
      .set("Authorization", `Bearer ${liveKey}`)
      .expect(200);
    expect(res.body.data.status).toBe("CANCELED");
    await worker.waitForLine((l) => l.run_id === run_id && l.message === "run aborted after cancel");
    const after = await read(liveKey, run_id);
    expect(after).toMatchObject({ status: "CANCELED", tokens_charged: 0, started_at: expect.any(String) });
    expect((await ledgerTotals(ctx.api.database.db, account.id)).cached).toEqual({
      balance: 100,
      reserved: 0,
    });
    await request(ctx.api.app)
      .post(`/api/v1/runs/${run_id}/cancel`)
      .set("Authorization", `Bearer ${liveKey}`)
      .expect(200);
  });

  it("when a completed run is canceled, then it is a 409 RUN_NOT_CANCELABLE and nothing changes", async () => {
    const { account, liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const { run_id } = (await create(liveKey, "test/instant", { prompt: "quick" })).body.data;
    await until(liveKey, run_id, "COMPLETED");
    const res = await request(ctx.api.app)
      .post(`/api/v1/runs/${run_id}/cancel`)
      .set("Authorization", `Bearer ${liveKey}`)
      .expect(409);
    expect(res.body.error.code).toBe("RUN_NOT_CANCELABLE");
    expect((await read(liveKey, run_id)).status).toBe("COMPLETED");
    expect((await ledgerTotals(ctx.api.database.db, account.id)).cached).toEqual({
      balance: 95,
      reserved: 0,
    });
  });

  it("when the prompt matches the content policy, then the run FAILS with CONTENT_POLICY, charged 0", async () => {
    const { account, liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const { run_id } = (
      await create(liveKey, "acme/pixel-hq", { prompt: "Draw a Forbidden-Thing, please", num_images: 2 })
    ).body.data;
    const failed = await until(liveKey, run_id, "FAILED");
    expect(failed).toEqual({
      run_id,
      status: "FAILED",
      error: { code: "CONTENT_POLICY", message: expect.any(String) },
    });
    expect((await ledgerTotals(ctx.api.database.db, account.id)).cached).toEqual({
      balance: 100,
      reserved: 0,
    });
    const run = await ctx.api.database.db.run.findUniqueOrThrow({ where: { id: run_id } });
    expect(run.tokensCharged).toBe(0);
  });

  it("when a run exceeds its execution timeout, then it FAILS with TIMEOUT and its reservation is released", async () => {
    const { account, liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const { run_id } = (await create(liveKey, "test/timeout", { prompt: "never ends" })).body.data;
    const failed = await until(liveKey, run_id, "FAILED");
    expect(failed.error.code).toBe("TIMEOUT");
    expect((await ledgerTotals(ctx.api.database.db, account.id)).cached).toEqual({
      balance: 100,
      reserved: 0,
    });
  });

  it("when Redis is down at creation, then the API still answers 201 and the sweeper gets the run to COMPLETED", async () => {
    const downApi = await startApi(
      { REDIS_URL: DEAD_REDIS_URL, OUTPUT_DIR: ctx.outputDir, PUBLIC_BASE_URL },
      { database: ctx.api.database },
    );
    try {
      const { account, liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
      const res = await request(downApi.app)
        .post("/api/v1/models/test/instant/run")
        .set("Authorization", `Bearer ${liveKey}`)
        .send({ input: { prompt: "while redis sleeps" } })
        .expect(201);
      const runId = res.body.data.run_id;
      expect(downApi.logLines.some((l) => l.includes("enqueue failed") && l.includes(runId))).toBe(true);
      const done = await until(liveKey, runId, "COMPLETED");
      expect(done.tokens_charged).toBe(5);
      expect((await ledgerTotals(ctx.api.database.db, account.id)).cached).toEqual({
        balance: 95,
        reserved: 0,
      });
    } finally {
      await downApi.close();
    }
  });

  it("when one queued run's job record is unreadable, then the sweeper still re-enqueues the others and says which one failed", async () => {
    const downApi = await startApi(
      { REDIS_URL: DEAD_REDIS_URL, OUTPUT_DIR: ctx.outputDir, PUBLIC_BASE_URL },
      { database: ctx.api.database },
    );
    const jobKey = (runId: string) => `${ctx.api.config.QUEUE_PREFIX}:runs:${runId}`;
    let broken = "";
    try {
      const { liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
      const created = async () =>
        (
          await request(downApi.app)
            .post("/api/v1/models/test/instant/run")
            .set("Authorization", `Bearer ${liveKey}`)
            .send({ input: { prompt: "while redis sleeps" } })
            .expect(201)
        ).body.data.run_id as string;
      broken = await created();
      // A job key of the wrong type: reading that job fails with WRONGTYPE, as corrupt data would.
      // (Set at once: the sweeper leaves a run alone for its first second.)
      await ctx.api.redis.set(jobKey(broken), "not a job hash");
      const healthy = await created();
      expect((await until(liveKey, healthy, "COMPLETED")).tokens_charged).toBe(5);
      await worker.waitForLine(
        (l) => l.message === "sweep could not re-enqueue a queued run" && l.run_id === broken,
      );
    } finally {
      await ctx.api.redis.del(jobKey(broken));
      await downApi.close();
    }
  });
});

describe("a worker killed mid-run", () => {
  it("when the executing worker is SIGKILLed, then another worker finishes the run once, charged once", async () => {
    const ctx = await setup({ RUN_LOCK_MS: "1000", WORKER_CONCURRENCY: "1" });
    const first = await startWorker(ctx.workerEnvFor());
    let second: SpawnedApp | undefined;
    try {
      const { account, liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
      const res = await request(ctx.api.app)
        .post("/api/v1/models/test/slow/run")
        .set("Authorization", `Bearer ${liveKey}`)
        .send({ input: { prompt: "survive a crash" } })
        .expect(201);
      const runId = res.body.data.run_id;
      await executing(ctx, runId);
      first.child.kill("SIGKILL");
      await first.exited;
      second = await startWorker(ctx.workerEnvFor());
      await second.waitForLine((l) => l.run_id === runId && l.message === "run completed", 30_000);
      const run = await ctx.api.database.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run).toMatchObject({ status: "COMPLETED", tokensCharged: 5, attempts: 2 });
      expect(await ctx.api.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
      expect((await ledgerTotals(ctx.api.database.db, account.id)).cached).toEqual({
        balance: 95,
        reserved: 0,
      });
    } finally {
      if (second) await stop(second);
      await ctx.api.close();
    }
  });
});

describe("a worker killed with batches in flight", () => {
  it("when it is SIGKILLed mid-drain, then another worker completes every run and none is charged twice", async () => {
    const ctx = await setup({ RUN_LOCK_MS: "1000" });
    let second: SpawnedApp | undefined;
    try {
      const runs = 400;
      // The echo model with 300 ms of work: the kill lands while starts and settlements are in flight.
      const echo = (await loadCatalogue()).find((m) => m.id === "acme/echo")!;
      await seedCatalogue(ctx.api.database.db, [
        { ...echo, id: "test/echo-300", runner: { kind: "builtin", generator: "echo", delay_ms: 300 } },
      ]);
      const { account, liveKey } = await createAccountWithKeys(ctx.api.database.db, runs);
      const ids: string[] = [];
      for (let i = 0; i < runs; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, () =>
            request(ctx.api.app)
              .post("/api/v1/models/test/echo-300/run")
              .set("Authorization", `Bearer ${liveKey}`)
              .send({ input: { prompt: "echo" } })
              .expect(201),
          ),
        );
        ids.push(...batch.map((r) => r.body.data.run_id as string));
      }
      const db = ctx.api.database.db;
      const first = await startWorker(ctx.workerEnvFor());
      // Kill it while runs are being started and settled in batches, not before and not after.
      await waitFor(
        async () => ((await db.run.count({ where: { status: "COMPLETED" } })) > 0 ? true : null),
        {
          what: "the first worker to be draining",
          intervalMs: 5,
        },
      );
      first.child.kill("SIGKILL");
      await first.exited;
      expect(await db.run.count({ where: { status: "COMPLETED" } })).toBeLessThan(runs);
      second = await startWorker(ctx.workerEnvFor());
      await waitFor(
        async () => ((await db.run.count({ where: { status: "COMPLETED" } })) === runs ? true : null),
        { what: "every run to complete", timeoutMs: 40_000 },
      );
      expect(await db.run.count({ where: { id: { in: ids }, status: "COMPLETED", tokensCharged: 1 } })).toBe(
        runs,
      );
      const charges = await db.ledgerEntry.groupBy({
        by: ["runId"],
        where: { kind: "CHARGE" },
        _count: true,
      });
      expect(charges).toHaveLength(runs);
      expect(charges.every((c) => c._count === 1)).toBe(true);
      const totals = await ledgerTotals(db, account.id);
      expect(totals.cached).toEqual(totals.ledger);
      expect(totals.cached).toEqual({ balance: 0, reserved: 0 });
    } finally {
      if (second) await stop(second);
      await ctx.api.close();
    }
  });
});

describe("worker shutdown", () => {
  async function slowRunOn(ctx: E2E) {
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const res = await request(ctx.api.app)
      .post("/api/v1/models/test/slow/run")
      .set("Authorization", `Bearer ${liveKey}`)
      .send({ input: { prompt: "finish me" } })
      .expect(201);
    const runId: string = res.body.data.run_id;
    await executing(ctx, runId);
    return runId;
  }

  it("when SIGTERM arrives mid-run within the grace period, then the run completes before the worker exits 0", async () => {
    const ctx = await setup({ SHUTDOWN_GRACE_MS: "20000" });
    try {
      const worker = await startWorker(ctx.workerEnvFor());
      const runId = await slowRunOn(ctx);
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      const run = await ctx.api.database.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.status).toBe("COMPLETED");
    } finally {
      await ctx.api.close();
    }
  });

  it("when the grace period runs out, then the worker exits and leaves the run for another worker", async () => {
    const ctx = await setup({ SHUTDOWN_GRACE_MS: "200", RUN_LOCK_MS: "1000" });
    let next: SpawnedApp | undefined;
    try {
      const worker = await startWorker(ctx.workerEnvFor());
      const runId = await slowRunOn(ctx);
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      expect(
        worker.lines.some((l) => l.message === "grace period over; leaving unfinished runs to other workers"),
      ).toBe(true);
      expect((await ctx.api.database.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe(
        "EXECUTING",
      );
      next = await startWorker(ctx.workerEnvFor());
      await next.waitForLine((l) => l.run_id === runId && l.message === "run completed", 30_000);
      expect(await ctx.api.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
    } finally {
      if (next) await stop(next);
      await ctx.api.close();
    }
  });
});
