import v8 from "node:v8";
import vm from "node:vm";
import request from "supertest";
import { ledgerTotals } from "@svc/db";
import { createAccountWithKeys, seedTestModels } from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";

// No worker runs in this file: runs stay QUEUED, which is what creation, reads and cancel need.
describe("runs without a worker", () => {
  let api: ApiHarness;
  let keys: Awaited<ReturnType<typeof createAccountWithKeys>>;
  let live: { Authorization: string };
  let test: { Authorization: string };

  beforeAll(async () => {
    api = await startApi();
    await seedTestModels(api.database.db);
    keys = await createAccountWithKeys(api.database.db, 1000);
    live = { Authorization: `Bearer ${keys.liveKey}` };
    test = { Authorization: `Bearer ${keys.testKey}` };
  });
  afterAll(() => api.close());

  const create = (auth: Record<string, string>, model: string, body: unknown) =>
    request(api.app)
      .post(`/api/v1/models/${model}/run`)
      .set(auth)
      .send(body as object);

  it("when a live run is created, then it answers 201 with exactly the creation fields and reserves the estimate", async () => {
    const before = await api.database.db.account.findUniqueOrThrow({ where: { id: keys.account.id } });
    const res = await create(live, "acme/pixel-hq", {
      input: { prompt: "a lighthouse", num_images: 2, image_size: "landscape_16_9" },
    }).expect(201);
    expect(res.body.data).toEqual({
      run_id: expect.stringMatching(/^run_[0-9A-Za-z]{22}$/),
      status: "queued",
      model_id: "acme/pixel-hq",
      model_name: "Pixel HQ",
      estimated_tokens: 10,
      is_test_request: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const after = await api.database.db.account.findUniqueOrThrow({ where: { id: keys.account.id } });
    expect(after.reserved - before.reserved).toBe(10);
    expect(after.balance).toBe(before.balance);
    // No worker gives its model capacity here: it waits in the model's queue, without a job.
    const state = await api.scheduler.states([res.body.data.run_id]);
    expect(state.get(res.body.data.run_id)).toEqual({ waiting: true, slot: null, leasedAt: null });
    expect(await api.queues.runs().getJob(res.body.data.run_id)).toBeUndefined();
  });

  it("when a run is created with a test key, then is_test_request is true and nothing is reserved", async () => {
    const before = await api.database.db.account.findUniqueOrThrow({ where: { id: keys.account.id } });
    const res = await create(test, "acme/pixel/fast", { input: { prompt: "draft" } }).expect(201);
    expect(res.body.data).toMatchObject({ is_test_request: true, estimated_tokens: 2, status: "queued" });
    const after = await api.database.db.account.findUniqueOrThrow({ where: { id: keys.account.id } });
    expect(after).toMatchObject({ balance: before.balance, reserved: before.reserved });
  });

  it("when input fields are omitted, then the schema defaults are stored with the run", async () => {
    const res = await create(live, "acme/pixel-hq", { input: { prompt: "defaults" } }).expect(201);
    const run = await api.database.db.run.findUniqueOrThrow({ where: { id: res.body.data.run_id } });
    expect(run.input).toEqual({ prompt: "defaults", image_size: "square_hd", num_images: 1 });
    expect(res.body.data.estimated_tokens).toBe(5);
  });

  it.each([
    ["missing prompt", { input: {} }, ["input.prompt"]],
    ["empty prompt", { input: { prompt: "" } }, ["input.prompt"]],
    ["prompt over 4000 characters", { input: { prompt: "x".repeat(4001) } }, ["input.prompt"]],
    ["a bad preset", { input: { prompt: "p", image_size: "huge" } }, ["input.image_size"]],
    ["num_images 0", { input: { prompt: "p", num_images: 0 } }, ["input.num_images"]],
    ["num_images 5", { input: { prompt: "p", num_images: 5 } }, ["input.num_images"]],
    ["num_images 1.5", { input: { prompt: "p", num_images: 1.5 } }, ["input.num_images"]],
    ["num_images as text", { input: { prompt: "p", num_images: "2" } }, ["input.num_images"]],
    ["prompt as a number", { input: { prompt: 42 } }, ["input.prompt"]],
    ["an unknown input field", { input: { prompt: "p", style: "noir" } }, ["input.style"]],
    [
      "several problems",
      { input: { num_images: 9, image_size: 3 } },
      ["input.image_size", "input.num_images", "input.prompt"],
    ],
    ["no input", {}, ["input"]],
    ["input not an object", { input: "a cat" }, ["input"]],
    ["an unknown top-level field", { input: { prompt: "p" }, priority: 1 }, [""]],
    [
      "an http webhook_url",
      { input: { prompt: "p" }, webhook_url: "http://example.com/hook" },
      ["webhook_url"],
    ],
    ["a webhook_url that is not a URL", { input: { prompt: "p" }, webhook_url: "hook" }, ["webhook_url"]],
  ])(
    "when the body has %s, then it is a 400 listing exactly those fields and nothing is created",
    async (_what, body, paths) => {
      const before = await api.database.db.run.count();
      const res = await create(live, "acme/pixel-hq", body).expect(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      const got = (res.body.error.details as { path: string }[]).map((d) => d.path);
      if (paths[0] === "") expect(got.length).toBeGreaterThan(0);
      else expect([...new Set(got)].sort()).toEqual(paths);
      expect(await api.database.db.run.count()).toBe(before);
    },
  );

  it("when the model is unknown, then it is a 404; when it is not active, then a 409", async () => {
    expect((await create(live, "acme/nope", { input: { prompt: "p" } }).expect(404)).body.error.code).toBe(
      "MODEL_NOT_FOUND",
    );
    expect(
      (await create(live, "acme/pixel-classic", { input: { prompt: "p" } }).expect(409)).body.error.code,
    ).toBe("MODEL_NOT_ACTIVE");
  });

  it("when an https webhook_url is given, then the run stores it", async () => {
    const res = await create(live, "acme/pixel/fast", {
      input: { prompt: "p" },
      webhook_url: "https://example.com/hook",
    }).expect(201);
    const run = await api.database.db.run.findUniqueOrThrow({ where: { id: res.body.data.run_id } });
    expect(run.webhookUrl).toBe("https://example.com/hook");
  });

  describe("reading and listing runs", () => {
    it("when a queued run is read, then it shows the queued fields and its place in the queue", async () => {
      const { run_id } = (await create(live, "acme/pixel-hq", { input: { prompt: "read me" } }).expect(201))
        .body.data;
      const res = await request(api.app).get(`/api/v1/runs/${run_id}`).set(live).expect(200);
      expect(res.body.data).toEqual({
        run_id,
        status: "QUEUED",
        queue_position: expect.any(Number),
        // No worker runs in this test: nothing honest can be said about its start.
        estimated_start_at: null,
        model_id: "acme/pixel-hq",
        created_at: expect.any(String),
      });
    });

    it("when a run belongs to another account or the other mode, then it is a 404 RUN_NOT_FOUND", async () => {
      const { run_id } = (await create(live, "acme/pixel-hq", { input: { prompt: "mine" } }).expect(201)).body
        .data;
      const other = await createAccountWithKeys(api.database.db, 100);
      for (const auth of [test, { Authorization: `Bearer ${other.liveKey}` }]) {
        const res = await request(api.app).get(`/api/v1/runs/${run_id}`).set(auth).expect(404);
        expect(res.body.error.code).toBe("RUN_NOT_FOUND");
        await request(api.app).post(`/api/v1/runs/${run_id}/cancel`).set(auth).expect(404);
      }
      await request(api.app).get("/api/v1/runs/run_doesnotexist").set(live).expect(404);
    });

    it("when listing with a small page, then runs come newest first across pages without repeats", async () => {
      const own = await createAccountWithKeys(api.database.db, 1000);
      const auth = { Authorization: `Bearer ${own.liveKey}` };
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push(
          (await create(auth, "acme/pixel/fast", { input: { prompt: `n${i}` } }).expect(201)).body.data
            .run_id,
        );
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: request.Response = await request(api.app)
          .get(`/api/v1/runs?limit=2${cursor ? `&cursor=${cursor}` : ""}`)
          .set(auth)
          .expect(200);
        seen.push(...res.body.data.runs.map((r: { run_id: string }) => r.run_id));
        cursor = res.body.data.next_cursor;
      } while (cursor);
      expect(seen).toEqual([...ids].reverse());
      const filtered = await request(api.app)
        .get("/api/v1/runs?status=QUEUED&model_id=acme/pixel/fast")
        .set(auth)
        .expect(200);
      expect(filtered.body.data.runs).toHaveLength(5);
      const none = await request(api.app).get("/api/v1/runs?status=COMPLETED").set(auth).expect(200);
      expect(none.body.data).toEqual({ runs: [], next_cursor: null });
      await request(api.app).get("/api/v1/runs?cursor=garbage").set(auth).expect(400);
      await request(api.app).get("/api/v1/runs?status=queued").set(auth).expect(400);
    });
  });

  describe("cancel", () => {
    it("when a queued run is canceled, then it is CANCELED, its job is gone, and the reservation is released", async () => {
      const own = await createAccountWithKeys(api.database.db, 100);
      const auth = { Authorization: `Bearer ${own.liveKey}` };
      const { run_id } = (
        await create(auth, "acme/pixel-hq", { input: { prompt: "stop", num_images: 3 } }).expect(201)
      ).body.data;
      expect(
        (await api.database.db.account.findUniqueOrThrow({ where: { id: own.account.id } })).reserved,
      ).toBe(15);
      const res = await request(api.app).post(`/api/v1/runs/${run_id}/cancel`).set(auth).expect(200);
      expect(res.body.data).toEqual({ run_id, status: "CANCELED", canceled_at: expect.any(String) });
      expect(await api.queues.runs().getJob(run_id)).toBeUndefined();
      const totals = await ledgerTotals(api.database.db, own.account.id);
      expect(totals.cached).toEqual({ balance: 100, reserved: 0 });
      expect(totals.ledger).toEqual(totals.cached);
      const read = await request(api.app).get(`/api/v1/runs/${run_id}`).set(auth).expect(200);
      expect(read.body.data).toEqual({
        run_id,
        status: "CANCELED",
        model_id: "acme/pixel-hq",
        created_at: expect.any(String),
        canceled_at: res.body.data.canceled_at,
        tokens_charged: 0,
      });
    });

    it("when a canceled run is canceled again, then the answer is the same", async () => {
      const { run_id } = (await create(live, "acme/pixel/fast", { input: { prompt: "twice" } }).expect(201))
        .body.data;
      const first = await request(api.app).post(`/api/v1/runs/${run_id}/cancel`).set(live).expect(200);
      const second = await request(api.app).post(`/api/v1/runs/${run_id}/cancel`).set(live).expect(200);
      expect(second.body.data).toEqual(first.body.data);
    });

    it("when a run is canceled concurrently many times, then it is released exactly once", async () => {
      const own = await createAccountWithKeys(api.database.db, 50);
      const auth = { Authorization: `Bearer ${own.liveKey}` };
      const { run_id } = (
        await create(auth, "acme/pixel-hq", { input: { prompt: "race", num_images: 2 } }).expect(201)
      ).body.data;
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => request(api.app).post(`/api/v1/runs/${run_id}/cancel`).set(auth)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      expect(new Set(answers.map((a) => a.body.data.canceled_at)).size).toBe(1);
      expect(await api.database.db.ledgerEntry.count({ where: { runId: run_id, kind: "RELEASE" } })).toBe(1);
      expect((await ledgerTotals(api.database.db, own.account.id)).cached).toEqual({
        balance: 50,
        reserved: 0,
      });
    });
  });

  describe("insufficient tokens", () => {
    it("when an account has tokens for exactly N runs and 3N are created at once, then exactly N succeed and nothing goes negative", async () => {
      const N = 6;
      const own = await createAccountWithKeys(api.database.db, 5 * N);
      const auth = { Authorization: `Bearer ${own.liveKey}` };
      const answers = await Promise.all(
        Array.from({ length: 3 * N }, (_, i) =>
          create(auth, "acme/pixel-hq", { input: { prompt: `run ${i}` } }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(N);
      expect(statuses.filter((s) => s === 402)).toHaveLength(2 * N);
      expect(answers.find((a) => a.status === 402)!.body.error.code).toBe("INSUFFICIENT_TOKENS");
      expect(await api.database.db.run.count({ where: { accountId: own.account.id } })).toBe(N);
      const totals = await ledgerTotals(api.database.db, own.account.id);
      expect(totals.cached).toEqual({ balance: 5 * N, reserved: 5 * N });
      expect(totals.ledger).toEqual(totals.cached);
    });

    it("when a run costs more than the available tokens, then 402 and no run; a test key still works", async () => {
      const own = await createAccountWithKeys(api.database.db, 4);
      await create({ Authorization: `Bearer ${own.liveKey}` }, "acme/pixel-hq", {
        input: { prompt: "p" },
      }).expect(402);
      await create({ Authorization: `Bearer ${own.testKey}` }, "acme/pixel-hq", {
        input: { prompt: "p" },
      }).expect(201);
      expect(await api.database.db.run.count({ where: { accountId: own.account.id, mode: "live" } })).toBe(0);
    });
  });

  describe("idempotency", () => {
    it("when the same key and body are sent twice, then one run is created and both answers carry it", async () => {
      const body = { input: { prompt: "once", num_images: 2 } };
      const a = await create(live, "acme/pixel-hq", body).set("Idempotency-Key", "k-seq").expect(201);
      const b = await create(live, "acme/pixel-hq", { input: { num_images: 2, prompt: "once" } })
        .set("Idempotency-Key", "k-seq")
        .expect(201);
      expect(b.body.data).toEqual(a.body.data);
      expect(b.headers["idempotent-replayed"]).toBe("true");
      expect(await api.database.db.run.count({ where: { idempotencyKey: "k-seq" } })).toBe(1);
    });

    it("when the same key and body are sent concurrently, then one run is created and reserved once", async () => {
      const own = await createAccountWithKeys(api.database.db, 100);
      const auth = { Authorization: `Bearer ${own.liveKey}` };
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          create(auth, "acme/pixel-hq", { input: { prompt: "together" } }).set("Idempotency-Key", "k-par"),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
      expect(new Set(answers.map((a) => a.body.data.run_id)).size).toBe(1);
      expect((await ledgerTotals(api.database.db, own.account.id)).cached).toEqual({
        balance: 100,
        reserved: 5,
      });
    });

    it("when the same key comes with a different body, then it is a 409 IDEMPOTENCY_KEY_REUSED", async () => {
      await create(live, "acme/pixel-hq", { input: { prompt: "first" } })
        .set("Idempotency-Key", "k-diff")
        .expect(201);
      const res = await create(live, "acme/pixel-hq", { input: { prompt: "second" } })
        .set("Idempotency-Key", "k-diff")
        .expect(409);
      expect(res.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    });

    it("when the same key is used by the test key, then it is a separate run", async () => {
      const a = await create(live, "acme/pixel/fast", { input: { prompt: "modes" } })
        .set("Idempotency-Key", "k-mode")
        .expect(201);
      const b = await create(test, "acme/pixel/fast", { input: { prompt: "modes" } })
        .set("Idempotency-Key", "k-mode")
        .expect(201);
      expect(b.body.data.run_id).not.toBe(a.body.data.run_id);
    });

    it("when the key was used more than 24 h ago, then a new run is created", async () => {
      const a = await create(live, "acme/pixel/fast", { input: { prompt: "old" } })
        .set("Idempotency-Key", "k-old")
        .expect(201);
      await api.database.db.run.update({
        where: { id: a.body.data.run_id },
        data: { createdAt: new Date(Date.now() - 25 * 3600 * 1000) },
      });
      const b = await create(live, "acme/pixel/fast", { input: { prompt: "old" } })
        .set("Idempotency-Key", "k-old")
        .expect(201);
      expect(b.body.data.run_id).not.toBe(a.body.data.run_id);
    });

    it("when the key is longer than 255 characters, then it is a 400 naming the header", async () => {
      const res = await create(live, "acme/pixel/fast", { input: { prompt: "p" } })
        .set("Idempotency-Key", "k".repeat(256))
        .expect(400);
      expect(res.body.error.details[0].path).toBe("idempotency-key");
    });
  });

  // On Node 20 a timeout combined by AbortSignal.any is lost to a garbage collection that runs
  // first; a wait must end on time however often the collector runs meanwhile.
  it("when garbage is collected during a Prefer: wait, then the wait still ends on time", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const collecting = setInterval(gc, 50);
    try {
      // A wait of 1 s answers (on Node 20's AbortSignal.any it never did: the request timed out).
      const res = await create(live, "acme/pixel/fast", { input: { prompt: "collected" } })
        .set("Prefer", "wait=1")
        .timeout(30_000)
        .expect(201);
      expect(res.body.data.status).toBe("queued");
    } finally {
      clearInterval(collecting);
    }
  });
});
