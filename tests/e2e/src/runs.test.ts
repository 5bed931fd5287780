import { Redis } from "ioredis";
import { ledgerTotals, loadCatalogue, seedCatalogue } from "@svc/db";
import { ModelRunClient, ModelRunError, type AnyRun } from "@svc/sdk";
import {
  DEAD_REDIS_URL,
  probeMedia,
  stopApps,
  TEST_REDIS_URL,
  waitFor,
  type SpawnedApp,
  localOutputKeys,
} from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// Runs through the built API and worker processes, as a client of the SDK sees them, with the
// ledger read back from Postgres.

/** Resolves once the run is EXECUTING in the database (a worker has started it). */
const executing = (service: E2EService, runId: string) =>
  waitFor(
    async () =>
      (await service.database.db.run.count({ where: { id: runId, status: "EXECUTING" } })) > 0 ? true : null,
    { what: `run ${runId} to be EXECUTING`, intervalMs: 20 },
  );

/** The run once it has this status. */
const until = (client: ModelRunClient, runId: string, status: AnyRun["status"]) =>
  waitFor(
    async () => {
      const run: AnyRun = await client.runs.get(runId);
      return run.status === status ? run : null;
    },
    { what: `run ${runId} to be ${status}` },
  );

/** Follows the run's events to its first progress report with images; returns their URLs. */
export async function firstImagesShown(client: ModelRunClient, runId: string): Promise<string[]> {
  for await (const event of client.stream(runId)) {
    const images =
      event.type === "progress" && (event.progress.output as { images?: string[] } | undefined)?.images;
    if (images) return images;
  }
  throw new Error(`run ${runId} ended before showing an image`);
}

const fetchBytes = async (url: string) => {
  const res = await fetch(url);
  return { res, body: Buffer.from(await res.arrayBuffer()) };
};

describe("runs end to end", () => {
  let service: E2EService;
  let worker: SpawnedApp;

  beforeAll(async () => {
    service = await startService();
    await service.startApi();
    worker = await service.startWorker({
      CONTENT_POLICY_BLOCKLIST: "forbidden thing,another banned phrase",
      WORKER_CONCURRENCY: "4",
      SWEEP_INTERVAL_MS: "200",
      // A queued run without a job is the sweeper's only after a second: long enough for a test
      // to act on a run before the sweeper does (the unreadable job record below).
      SWEEP_QUEUED_AFTER_MS: "1000",
    });
  });
  afterAll(() => service?.stop());

  const balance = async (accountId: string) => (await ledgerTotals(service.database.db, accountId)).cached;

  it("when a live run of 2 landscape images completes, then both URLs are 1024x576 PNGs and exactly 10 tokens are charged", async () => {
    const { accountId, client } = await service.account(100);
    const { run_id } = await client.runs.create("acme/pixel-hq", {
      input: { prompt: "a harbour at dawn", num_images: 2, image_size: "landscape_16_9" },
    });
    const started = await until(client, run_id, "EXECUTING");
    expect(started).toEqual({
      run_id,
      status: "EXECUTING",
      model_id: "acme/pixel-hq",
      created_at: expect.any(String),
      started_at: expect.any(String),
    });
    const done = await until(client, run_id, "COMPLETED");
    expect(done).toEqual({
      run_id,
      status: "COMPLETED",
      model_id: "acme/pixel-hq",
      output: { images: [expect.any(String), expect.any(String)] },
      tokens_charged: 10,
      created_at: started.created_at,
      completed_at: expect.any(String),
      duration_ms: expect.any(Number),
    });
    expect(done.duration_ms).toBeGreaterThanOrEqual(3000);
    const images = done.output!.images as string[];
    for (const url of images) {
      expect(url.startsWith(`${service.base}/files/out_`)).toBe(true);
      const { res, body } = await fetchBytes(url);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(body.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expect([body.readUInt32BE(16), body.readUInt32BE(20)]).toEqual([1024, 576]);
    }
    expect(images[0]).not.toBe(images[1]);
    const totals = await ledgerTotals(service.database.db, accountId);
    expect(totals.cached).toEqual({ balance: 90, reserved: 0 });
    expect(totals.ledger).toEqual(totals.cached);
  });

  it("when the same run is made with a test key, then it completes charged 0 and the balance is untouched", async () => {
    const { accountId, testClient } = await service.account(100);
    const created = await testClient.runs.create("acme/pixel/fast", {
      input: { prompt: "a harbour at dawn", num_images: 2, image_size: "landscape_16_9" },
    });
    expect(created.is_test_request).toBe(true);
    const done = await until(testClient, created.run_id, "COMPLETED");
    expect(done.tokens_charged).toBe(0);
    expect(done.output!.images).toHaveLength(2);
    expect(await balance(accountId)).toEqual({ balance: 100, reserved: 0 });
    expect(await service.database.db.ledgerEntry.count({ where: { runId: created.run_id } })).toBe(0);
  });

  it("when one Idempotency-Key is sent at once to two API processes, then one run is made, charged once, and every answer carries it", async () => {
    // Keys are looked up only once the creation statement finds them taken: a twin inserted by the
    // other process meanwhile is a unique violation there, and the run is answered as a replay.
    const second = (await service.startApi()).base;
    const { accountId, liveKey, client } = await service.account(100);
    const other = new ModelRunClient({ apiKey: liveKey, baseUrl: second });
    const body = { input: { prompt: "exactly once" } };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? other : client).runs.create("acme/echo", body, { idempotencyKey: "order-e2e" }),
      ),
    );
    const ids = new Set(answers.map((a) => a.run_id));
    expect(ids.size).toBe(1);
    const [runId] = [...ids];
    expect(await service.database.db.run.count({ where: { accountId } })).toBe(1);
    const done = await until(client, runId!, "COMPLETED");
    expect(await balance(accountId)).toEqual({ balance: 100 - done.tokens_charged!, reserved: 0 });
    expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "RESERVE" } })).toBe(1);
    expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
  });

  it("when audio and video runs complete, then their files are a WAV and an H.264 MP4, charged per second", async () => {
    const { client } = await service.account(100);
    const audio = await client.runs.create("acme/voice/tone", {
      input: { prompt: "rain", duration_seconds: 2 },
    });
    const video = await client.runs.create("acme/motion/clip", {
      input: { prompt: "waves", duration_seconds: 1 },
    });
    const a = await until(client, audio.run_id, "COMPLETED");
    const v = await until(client, video.run_id, "COMPLETED");
    expect([a.tokens_charged, v.tokens_charged]).toEqual([2, 4]);
    const wav = await fetchBytes((a.output!.audio as string[])[0]!);
    expect(wav.res.headers.get("content-type")).toMatch(/audio\/(x-)?wav/);
    expect(wav.body.toString("ascii", 8, 12)).toBe("WAVE");
    const mp4 = await fetchBytes((v.output!.video as string[])[0]!);
    expect(mp4.res.headers.get("content-type")).toBe("video/mp4");
    const probed = await probeMedia(mp4.body);
    expect(probed.seconds).toBeCloseTo(1, 1);
    expect(probed.streams).toEqual([{ type: "video", codec: "h264", width: 320, height: 180 }]);
  });

  it("when an executing run is canceled, then the worker aborts it, it stays CANCELED and everything is refunded", async () => {
    const { accountId, client } = await service.account(100);
    const { run_id } = await client.runs.create("test/slow", {
      input: { prompt: "slow boat", num_images: 2 },
    });
    await until(client, run_id, "EXECUTING");
    expect((await client.runs.cancel(run_id)).status).toBe("CANCELED");
    await worker.waitForLine((l) => l.run_id === run_id && l.message === "run aborted after cancel");
    expect(await client.runs.get(run_id)).toMatchObject({
      status: "CANCELED",
      tokens_charged: 0,
      started_at: expect.any(String),
    });
    expect(await balance(accountId)).toEqual({ balance: 100, reserved: 0 });
    expect((await client.runs.cancel(run_id)).status).toBe("CANCELED");
  });

  it("when a run is canceled after its first image was shown, then it is charged for that image and refunded the rest", async () => {
    const { accountId, client } = await service.account(100);
    const { run_id } = await client.runs.create("test/slow", {
      input: { prompt: "half a boat", num_images: 2 },
    });
    const shown = await firstImagesShown(client, run_id);
    expect(shown).toHaveLength(1);
    expect((await client.runs.cancel(run_id)).status).toBe("CANCELED");
    expect(await client.runs.get(run_id)).toMatchObject({ status: "CANCELED", tokens_charged: 5 });
    expect(await balance(accountId)).toEqual({ balance: 95, reserved: 0 });
    const ledger = await service.database.db.ledgerEntry.findMany({ where: { runId: run_id } });
    expect(ledger.map((e) => [e.kind, e.amount]).sort()).toEqual([
      ["CHARGE", 5],
      ["RELEASE", 5],
      ["RESERVE", 10],
    ]);
    // What was shown stays the client's: it was paid for.
    expect((await fetchBytes(shown[0]!)).res.status).toBe(200);
  });

  it("when Cancel-After ends a run after its first image was shown, then it is charged for that image alone", async () => {
    const { accountId, client } = await service.account(100);
    // Images at ~3 s and ~6 s: the deadline falls between them.
    const { run_id } = await client.runs.create(
      "test/slow",
      { input: { prompt: "deadline boat", num_images: 2 } },
      { cancelAfter: "4500ms" },
    );
    expect(await firstImagesShown(client, run_id)).toHaveLength(1);
    const ended = await until(client, run_id, "CANCELED");
    expect(ended).toMatchObject({ tokens_charged: 5, error: { code: "CANCEL_AFTER" } });
    expect(await balance(accountId)).toEqual({ balance: 95, reserved: 0 });
  });

  it("when cancels are swept around an image's save, then every stored file is charged, shown URLs answer and no other output can be guessed from them", async () => {
    const { accountId, client } = await service.account(1000);
    let charged = 0;
    // test/steps makes an image every 250 ms: cancels from just after the first image was shown
    // to past the second's save.
    for (let afterMs = 0; afterMs <= 300; afterMs += 20) {
      const { run_id } = await client.runs.create("test/steps", {
        input: { prompt: `sweep ${afterMs}`, num_images: 3 },
      });
      const [first] = await firstImagesShown(client, run_id);
      await new Promise((r) => setTimeout(r, afterMs));
      await client.runs.cancel(run_id);
      const ended = await until(client, run_id, "CANCELED");
      const units = ended.tokens_charged! / 5;
      charged += ended.tokens_charged!;
      const [token] = first!.slice(`${service.base}/files/`.length).split("/");
      const files = async () =>
        (await localOutputKeys(service.env.OUTPUT_DIR!)).filter((k) => k.startsWith(`${token}/`));
      // Once the worker is done with the run, the store holds exactly the run's charged images.
      await waitFor(async () => ((await files()).length === units ? true : null), {
        what: `run ${run_id} (cancel after ${afterMs} ms) to keep ${units} files`,
        timeoutMs: 5_000,
      });
      expect((await fetchBytes(first!)).res.status).toBe(200);
      for (const guess of ["0.png", "1.png", "2.png"])
        expect((await fetch(`${service.base}/files/${token}/${guess}`)).status).toBe(404);
    }
    const totals = await ledgerTotals(service.database.db, accountId);
    expect(totals.cached).toEqual({ balance: 1000 - charged, reserved: 0 });
    expect(totals.ledger).toEqual(totals.cached);
  });

  it("when a completed run is canceled, then it is a 409 RUN_NOT_CANCELABLE and nothing changes", async () => {
    const { accountId, client } = await service.account(100);
    const { run_id } = await client.runs.create("test/instant", { input: { prompt: "quick" } });
    await until(client, run_id, "COMPLETED");
    const refused = await client.runs.cancel(run_id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ModelRunError);
    expect(refused).toMatchObject({ status: 409, code: "RUN_NOT_CANCELABLE" });
    expect((await client.runs.get(run_id)).status).toBe("COMPLETED");
    expect(await balance(accountId)).toEqual({ balance: 95, reserved: 0 });
  });

  it("when the prompt matches the content policy, then the run FAILS with CONTENT_POLICY, charged 0", async () => {
    const { accountId, client } = await service.account(100);
    const { run_id } = await client.runs.create("acme/pixel-hq", {
      input: { prompt: "Draw a Forbidden-Thing, please", num_images: 2 },
    });
    const failed = await until(client, run_id, "FAILED");
    expect(failed).toEqual({
      run_id,
      status: "FAILED",
      error: { code: "CONTENT_POLICY", message: expect.any(String) },
    });
    expect(await balance(accountId)).toEqual({ balance: 100, reserved: 0 });
    const run = await service.database.db.run.findUniqueOrThrow({ where: { id: run_id } });
    expect(run.tokensCharged).toBe(0);
  });

  it("when a run exceeds its execution timeout, then it FAILS with TIMEOUT and its reservation is released", async () => {
    const { accountId, client } = await service.account(100);
    const { run_id } = await client.runs.create("test/timeout", { input: { prompt: "never ends" } });
    const failed = await until(client, run_id, "FAILED");
    expect(failed.error!.code).toBe("TIMEOUT");
    expect(await balance(accountId)).toEqual({ balance: 100, reserved: 0 });
  });

  /** An API whose Redis is away, and a client of `liveKey` on it that does not retry. */
  const apiWithoutRedis = async (liveKey: string) => {
    const down = await service.startApi({ REDIS_URL: DEAD_REDIS_URL });
    return { down, client: new ModelRunClient({ apiKey: liveKey, baseUrl: down.base, maxRetries: 0 }) };
  };

  it("when Redis is down at creation, then the API still answers 201 and the sweeper gets the run to COMPLETED", async () => {
    const { accountId, liveKey, client } = await service.account(100);
    const { down, client: through } = await apiWithoutRedis(liveKey);
    try {
      const { run_id } = await through.runs.create("test/instant", {
        input: { prompt: "while redis sleeps" },
      });
      const said = (l: Record<string, unknown>) => JSON.stringify(l);
      expect(down.app.lines.some((l) => said(l).includes("enqueue failed") && said(l).includes(run_id))).toBe(
        true,
      );
      expect((await until(client, run_id, "COMPLETED")).tokens_charged).toBe(5);
      expect(await balance(accountId)).toEqual({ balance: 95, reserved: 0 });
    } finally {
      await stopApps(down.app);
    }
  });

  it("when one queued run's job record is unreadable, then the sweeper still re-enqueues the others and says which one failed", async () => {
    const { liveKey, client } = await service.account(100);
    const { down, client: through } = await apiWithoutRedis(liveKey);
    const redis = new Redis(TEST_REDIS_URL);
    // test/instant renders images: its runs' jobs are those of runs leased a render slot.
    const jobKey = (runId: string) => `${service.prefix}:leased-runs:${runId}`;
    let broken = "";
    try {
      const created = async () =>
        (await through.runs.create("test/instant", { input: { prompt: "while redis sleeps" } })).run_id;
      broken = await created();
      // A job key of the wrong type: reading that job fails with WRONGTYPE, as corrupt data would.
      // (Set at once: the sweeper leaves a run alone for its first second.)
      await redis.set(jobKey(broken), "not a job hash");
      const healthy = await created();
      expect((await until(client, healthy, "COMPLETED")).tokens_charged).toBe(5);
      await worker.waitForLine(
        (l) => l.message === "sweep could not re-enqueue a run" && l.run_id === broken,
      );
    } finally {
      await redis.del(jobKey(broken));
      redis.disconnect();
      await stopApps(down.app);
    }
  });
});

/** A service of its own with its API started, for a test that kills or stops workers; stopped after. */
async function onOwnService(env: Record<string, string>, test: (service: E2EService) => Promise<void>) {
  const service = await startService(env);
  try {
    await service.startApi();
    await test(service);
  } finally {
    await service.stop();
  }
}

/** A slow run on the service that a worker is executing. */
async function slowRunOn(service: E2EService) {
  const { client } = await service.account(100);
  const { run_id } = await client.runs.create("test/slow", { input: { prompt: "finish me" } });
  await executing(service, run_id);
  return run_id;
}

describe("instant runs (acme/echo)", () => {
  it("when echo runs' jobs carry their input, then each is started and ended at once; a job that does not match its run is executed the usual way", async () => {
    await onOwnService({ CONTENT_POLICY_BLOCKLIST: "forbidden thing" }, async (service) => {
      const { accountId, client } = await service.account(10);
      const create = async (prompt: string) =>
        (await client.runs.create("acme/echo", { input: { prompt } })).run_id;
      const [plain, unreadable, stale, blocked] = [
        await create("hello"),
        await create("unreadable input"),
        await create("stale reservation"),
        await create("a forbidden thing"),
      ];
      // No worker yet: the jobs wait, and two are changed as a corrupt or outdated job would be.
      const redis = new Redis(TEST_REDIS_URL);
      try {
        const edit = async (runId: string, change: (instant: Record<string, unknown>) => void) => {
          const key = `${service.prefix}:runs:${runId}`;
          const data = JSON.parse((await redis.hget(key, "data"))!) as { instant: Record<string, unknown> };
          change(data.instant);
          await redis.hset(key, "data", JSON.stringify(data));
        };
        await edit(unreadable, (instant) => (instant.input = "{not json"));
        await edit(stale, (instant) => (instant.reservedTokens = 7));
      } finally {
        redis.disconnect();
      }
      await service.startWorker();
      for (const id of [plain, unreadable, stale]) {
        const done = await until(client, id, "COMPLETED");
        expect(done.tokens_charged).toBe(1);
      }
      expect((await until(client, blocked, "FAILED")).error?.code).toBe("CONTENT_POLICY");
      const rows = await service.database.db.run.findMany({ where: { accountId } });
      // The usual way sets an execution deadline at the start; one transition from QUEUED never does.
      const usual = rows.filter((r) => r.deadlineAt !== null).map((r) => r.id);
      expect(usual.sort()).toEqual([unreadable, stale].sort());
      for (const row of rows) {
        expect(row.attempts).toBe(1);
        expect(row.startedAt!.getTime()).toBeGreaterThanOrEqual(row.createdAt.getTime());
        expect(row.completedAt!.getTime()).toBeGreaterThanOrEqual(row.startedAt!.getTime());
      }
      expect(await service.database.db.ledgerEntry.count({ where: { accountId, kind: "CHARGE" } })).toBe(3);
      expect((await ledgerTotals(service.database.db, accountId)).cached).toEqual({
        balance: 7,
        reserved: 0,
      });
      // A stream still shows the start before the end.
      const statuses: string[] = [];
      for await (const event of client.stream(blocked))
        if (event.type === "status") statuses.push(event.run.status);
      expect(statuses).toEqual(["QUEUED", "EXECUTING", "FAILED"]);
    });
  });
});

describe("a worker killed mid-run", () => {
  it("when the executing worker is SIGKILLed, then another worker finishes the run once, charged once", async () => {
    await onOwnService({ RUN_LOCK_MS: "1000" }, async (service) => {
      const first = await service.startWorker({ WORKER_CONCURRENCY: "1" });
      const { accountId, client } = await service.account(100);
      const { run_id: runId } = await client.runs.create("test/slow", {
        input: { prompt: "survive a crash" },
      });
      await executing(service, runId);
      first.child.kill("SIGKILL");
      await first.exited;
      const second = await service.startWorker({ WORKER_CONCURRENCY: "1" });
      await second.waitForLine((l) => l.run_id === runId && l.message === "run completed", 30_000);
      const run = await service.database.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run).toMatchObject({ status: "COMPLETED", tokensCharged: 5, attempts: 2 });
      expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
      expect((await ledgerTotals(service.database.db, accountId)).cached).toEqual({
        balance: 95,
        reserved: 0,
      });
    });
  });
});

describe("a worker killed with batches in flight", () => {
  it("when it is SIGKILLed mid-drain, then another worker completes every run and none is charged twice", async () => {
    await onOwnService({ RUN_LOCK_MS: "1000" }, async (service) => {
      const runs = 400;
      // The echo model with 300 ms of work: the kill lands while starts and settlements are in flight.
      const echo = (await loadCatalogue()).find((m) => m.id === "acme/echo")!;
      const db = service.database.db;
      await seedCatalogue(db, [
        { ...echo, id: "test/echo-300", runner: { kind: "builtin", generator: "echo", delay_ms: 300 } },
      ]);
      const { accountId, client } = await service.account(runs);
      const ids: string[] = [];
      for (let i = 0; i < runs; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, () =>
            client.runs.create("test/echo-300", { input: { prompt: "echo" } }),
          ),
        );
        ids.push(...batch.map((r) => r.run_id));
      }
      // 100 at a time: the runs drain in four waves of 300 ms, so the kill after the first
      // completions lands with the next wave starting and the rest waiting (with all 400 at once,
      // every settlement could commit between two looks and the kill would come after the drain).
      const first = await service.startWorker({ WORKER_CONCURRENCY: "100" });
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
      await service.startWorker();
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
      const totals = await ledgerTotals(db, accountId);
      expect(totals.cached).toEqual(totals.ledger);
      expect(totals.cached).toEqual({ balance: 0, reserved: 0 });
    });
  });
});

describe("worker shutdown", () => {
  it("when SIGTERM arrives mid-run within the grace period, then the run completes before the worker exits 0", async () => {
    await onOwnService({ SHUTDOWN_GRACE_MS: "20000" }, async (service) => {
      const worker = await service.startWorker();
      const runId = await slowRunOn(service);
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      const run = await service.database.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.status).toBe("COMPLETED");
    });
  });

  it("when the grace period runs out, then the worker exits and leaves the run for another worker", async () => {
    await onOwnService({ SHUTDOWN_GRACE_MS: "200", RUN_LOCK_MS: "1000" }, async (service) => {
      const worker = await service.startWorker();
      const runId = await slowRunOn(service);
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      expect(
        worker.lines.some((l) => l.message === "grace period over; leaving unfinished runs to other workers"),
      ).toBe(true);
      expect((await service.database.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe(
        "EXECUTING",
      );
      const next = await service.startWorker();
      await next.waitForLine((l) => l.run_id === runId && l.message === "run completed", 30_000);
      expect(await service.database.db.ledgerEntry.count({ where: { runId, kind: "CHARGE" } })).toBe(1);
    });
  });
});
