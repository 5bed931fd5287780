import OpenAI, { toFile } from "openai";
import type { ModelRunClient } from "@svc/sdk";
import { createHmac } from "node:crypto";
import {
  freePort,
  seedCogModel,
  startFakeCog,
  startHttpsReceiver,
  waitFor,
  type FakeCog,
  type SpawnedApp,
} from "@svc/testkit";
import { adminCli, startService, type E2EService } from "./service.js";

// Batches (issue #61) against the built API and worker: lines checked one by one, items admitted
// as runs as the model's places free (never more than the batches' share), at the batch price,
// results as JSONL checked line by line against the runs, a cancel, and a worker killed midway.
describe("batches", () => {
  let service: E2EService;
  let cog: FakeCog;
  let worker: SpawnedApp;
  let workerEnv: Record<string, string>;
  let metricsPort: number;

  beforeAll(async () => {
    service = await startService({ BATCH_FEED_INTERVAL_MS: "40", BATCH_MAX_SHARE_PERCENT: "50" });
    await service.startApi();
    const callbackPort = await freePort();
    metricsPort = await freePort();
    workerEnv = {
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: "127.0.0.1",
      COG_CALLBACK_URL: `http://127.0.0.1:${callbackPort}`,
      COG_CALLBACK_PORT: String(callbackPort),
      COG_CALLBACK_HOST: "127.0.0.1",
    };
    worker = await service.startWorker(workerEnv);
    cog = await startFakeCog({ concurrency: 2, behaviour: { delayMs: 150, imageSide: 16 } });
    // Two places; batches may hold one of them.
    await seedCogModel(service.database.db, "batch/cog", [cog.url], { runner: { concurrency: 2 } });
  });
  afterAll(async () => {
    await cog?.close();
    await service?.stop();
  });

  const api = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${service.base}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
    });
  const json = (key: string, path: string, body: unknown) =>
    api(key, path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  type BatchView = {
    id: string;
    status: string;
    counts: { total: number; completed: number; failed: number; running: number; pending: number };
    tokens_charged: number;
  };
  const batchOf = async (key: string, id: string) =>
    ((await (await api(key, `/batches/${id}`)).json()) as { data: BatchView }).data;
  /**
   * The batch once it has ended so and nothing of it runs (an expired batch's running items end
   * as they will, after it), its counts checked against its lines (`tallied`).
   */
  const ended = async (key: string, id: string, status = "completed", client?: ModelRunClient) =>
    tallied(
      await waitFor(
        async () => {
          const b = client
            ? ((await client.batches.get(id)) as unknown as BatchView)
            : await batchOf(key, id);
          return b.status === status && b.counts.running === 0 ? b : null;
        },
        { what: `batch ${id} ${status}`, timeoutMs: 60_000 },
      ),
    );
  /**
   * An ended batch's counts as its view gives them (its row's tally), checked against its lines
   * counted one by one, each with its run.
   */
  const tallied = async (view: BatchView) => {
    const [c] = await service.database.db.$queryRaw<
      { total: number; completed: number; failed: number; running: number; pending: number; tokens: number }[]
    >`SELECT count(*)::int AS total,
             count(*) FILTER (WHERE i.state = 'pending')::int AS pending,
             count(*) FILTER (WHERE r.status IN ('QUEUED', 'EXECUTING'))::int AS running,
             count(*) FILTER (WHERE r.status = 'COMPLETED')::int AS completed,
             count(*) FILTER (WHERE r.status IN ('FAILED', 'CANCELED') OR (i.state <> 'pending' AND r.id IS NULL))::int AS failed,
             COALESCE(sum(r.tokens_charged), 0)::int AS tokens
      FROM batch_items i LEFT JOIN runs r ON r.id = i.run_id WHERE i.batch_id = ${view.id}`;
    expect({ ...view.counts, tokens: view.tokens_charged }).toEqual(c);
    return view;
  };
  type ResultLine = {
    line: number;
    custom_id: string | null;
    run_id: string | null;
    status: string;
    output: { images?: string[] } | null;
    error: { code: string; message: string; param?: string | null } | null;
    tokens_charged: number;
  };
  const lines = async (key: string, id: string, which = "results") => {
    const res = await api(key, `/batches/${id}/${which}`);
    expect(res.headers.get("content-type")).toMatch(/application\/jsonl/);
    return (await res.text())
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ResultLine);
  };

  it("when a batch has good and bad lines, then each good one is a run at the batch price, each bad one an error line naming the line and field, and the results agree with the runs", async () => {
    const { liveKey, accountId } = await service.account(1_000);
    const made = await json(liveKey, "/batches", {
      model: "batch/cog",
      metadata: { catalogue: "spring" },
      items: [
        { custom_id: "a", input: { prompt: "a red chair" } },
        { custom_id: "b", input: { prompt: "" } },
        { custom_id: "c", input: { prompt: "a blue lamp" } },
        "not an item",
        { custom_id: "e", input: { prompt: "a green rug", image_size: "landscape_16_9" } },
      ],
    });
    expect(made.status).toBe(201);
    const { data } = (await made.json()) as { data: BatchView & { discount_percent: number } };
    expect(data).toMatchObject({ status: "in_progress", discount_percent: 50, counts: { total: 5 } });
    // The catalogue says what a batch item saves.
    const model = (await (await api(liveKey, "/models/batch/cog")).json()) as {
      data: { pricing: { description: string } };
    };
    expect(model.data.pricing.description).toContain("50% off in a batch");
    const done = await ended(liveKey, data.id);
    expect(done.counts).toMatchObject({ total: 5, completed: 3, failed: 2, running: 0, pending: 0 });
    // 5 tokens an image, less half, rounded up: 3 each.
    expect(done.tokens_charged).toBe(9);
    const results = await lines(liveKey, data.id);
    expect(results.map((r) => [r.line, r.custom_id, r.status])).toEqual([
      [1, "a", "completed"],
      [2, "b", "invalid"],
      [3, "c", "completed"],
      [4, null, "invalid"],
      [5, "e", "completed"],
    ]);
    expect(results[1]!.error).toMatchObject({ param: "input.prompt" });
    for (const r of results.filter((x) => x.status === "completed")) {
      const run = (await (await api(liveKey, `/runs/${r.run_id}`)).json()) as {
        data: { status: string; output: unknown; tokens_charged: number };
      };
      expect(run.data).toMatchObject({ status: "COMPLETED", output: r.output, tokens_charged: 3 });
    }
    const errors = await lines(liveKey, data.id, "errors");
    expect(errors.map((e) => e.line)).toEqual([2, 4]);
    // The batch's runs are listed with it, and the account paid exactly their charges.
    const listed = (await (await api(liveKey, `/runs?batch_id=${data.id}`)).json()) as {
      data: { runs: unknown[] };
    };
    expect(listed.data.runs).toHaveLength(3);
    const account = await service.database.db.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(account).toMatchObject({ balance: 1_000 - 9, reserved: 0 });
  });

  it("when a batch comes as a JSON Lines body, then it is read line by line, a line that is not JSON an error line", async () => {
    const { liveKey } = await service.account(1_000);
    const body = [
      '{"custom_id":"x","input":{"prompt":"one"}}',
      "{oops",
      "",
      '{"input":{"prompt":"two"}}',
    ].join("\n");
    const made = await api(liveKey, "/batches?model=batch/cog", {
      method: "POST",
      headers: { "content-type": "application/jsonl" },
      body,
    });
    expect(made.status).toBe(201);
    const { data } = (await made.json()) as { data: BatchView };
    await ended(liveKey, data.id);
    const results = await lines(liveKey, data.id);
    expect(results.map((r) => [r.line, r.status, r.error?.code ?? null])).toEqual([
      [1, "completed", null],
      [2, "invalid", "invalid_json"],
      [3, "completed", null],
    ]);
    // The same lines as a batch file of ours, named by a batch.
    const uploaded = await api(liveKey, "/files?purpose=batch", { method: "POST", body });
    expect(uploaded.status).toBe(201);
    const file = ((await uploaded.json()) as { data: { id: string; content_type: string } }).data;
    expect(file.content_type).toBe("application/jsonl");
    const fromFile = await json(liveKey, "/batches", { model: "batch/cog", input_file_id: file.id });
    expect(fromFile.status).toBe(201);
    const byFile = ((await fromFile.json()) as { data: BatchView }).data;
    await ended(liveKey, byFile.id);
    expect((await lines(liveKey, byFile.id)).map((r) => r.status)).toEqual([
      "completed",
      "invalid",
      "completed",
    ]);
    // Neither or both of items and input_file_id: 400.
    expect((await json(liveKey, "/batches", { model: "batch/cog" })).status).toBe(400);
  });

  it("when a batch runs while others run interactively, then it never holds more than its share of the places, and an interactive run starts ahead of the batch's waiting items", async () => {
    const { liveKey } = await service.account(1_000);
    const before = cog.puts.length;
    const made = await json(liveKey, "/batches", {
      model: "batch/cog",
      items: Array.from({ length: 8 }, (_, i) => ({ custom_id: `s${i}`, input: { prompt: `s${i}` } })),
    });
    const { data } = (await made.json()) as { data: BatchView };

    await waitFor(async () => cog.puts.length > before, { what: "the first item" });
    const interactive = (await (
      await json(liveKey, "/models/batch/cog/run", { input: { prompt: "now" } })
    ).json()) as {
      data: { run_id: string };
    };
    const started = await waitFor(
      async () => {
        const r = (await (await api(liveKey, `/runs/${interactive.data.run_id}`)).json()) as {
          data: { status: string };
        };
        return r.data.status !== "QUEUED" ? Date.now() : null;
      },
      { what: "the interactive run to start" },
    );
    const done = await ended(liveKey, data.id);
    expect(done.counts.completed).toBe(8);
    // Items on the server at once (its predictions overlapping): never more than the share, one
    // of its two places.
    const items = (await service.database.db.run.findMany({ where: { batchId: data.id } })).map((r) =>
      cog.predictions.get(r.id)!,
    );
    const most = Math.max(
      ...items.map(
        (p) =>
          items.filter((q) => q.startedAt <= p.startedAt && (q.endedAt ?? Infinity) > p.startedAt).length,
      ),
    );
    expect(most).toBe(1);
    // It started while the batch still had items to run.
    const results = await lines(liveKey, data.id);
    const lastItemEnd = Math.max(
      ...results.map((r) => new Date(cog.predictions.get(r.run_id!)!.endedAt ?? 0).getTime()),
    );
    expect(started).toBeLessThan(lastItemEnd);
  });

  it("when a batch is canceled, then lines not started end canceled, charged nothing, and it ends canceled", async () => {
    const { liveKey, accountId } = await service.account(1_000);
    const made = await json(liveKey, "/batches", {
      model: "batch/cog",
      items: Array.from({ length: 20 }, (_, i) => ({ input: { prompt: `c${i}` } })),
    });
    const { data } = (await made.json()) as { data: BatchView };
    await waitFor(async () => (await batchOf(liveKey, data.id)).counts.completed >= 1, {
      what: "an item done",
    });
    const canceled = await api(liveKey, `/batches/${data.id}/cancel`, { method: "POST" });
    expect(canceled.status).toBe(200);
    expect(["canceling", "canceled"]).toContain(((await canceled.json()) as { data: BatchView }).data.status);
    const done = await ended(liveKey, data.id, "canceled");
    const results = await lines(liveKey, data.id);
    expect(results).toHaveLength(20);
    const completed = results.filter((r) => r.status === "completed");
    expect(completed.length).toBe(done.counts.completed);
    expect(results.filter((r) => r.status === "canceled" && r.run_id === null).length).toBeGreaterThan(10);
    const account = await service.database.db.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(account.reserved).toBe(0);
    expect(account.balance).toBe(1_000 - done.tokens_charged);
    expect((await api(liveKey, `/batches/nope`)).status).toBe(404);
  });

  it("when the worker is killed midway through a batch, then another finishes it: every line once, each completed line's run completed and charged once", async () => {
    const { liveKey, accountId } = await service.account(1_000);
    const made = await json(liveKey, "/batches", {
      model: "batch/cog",
      items: Array.from({ length: 12 }, (_, i) => ({ custom_id: `k${i}`, input: { prompt: `k${i}` } })),
    });
    const { data } = (await made.json()) as { data: BatchView };
    await waitFor(async () => (await batchOf(liveKey, data.id)).counts.completed >= 3, {
      what: "three items done",
    });
    worker.child.kill("SIGKILL");
    await worker.exited;
    worker = await service.startWorker(workerEnv);
    const done = await ended(liveKey, data.id);
    expect(done.counts).toMatchObject({ total: 12, completed: 12, failed: 0 });
    const results = await lines(liveKey, data.id);
    expect(results.map((r) => r.custom_id)).toEqual(Array.from({ length: 12 }, (_, i) => `k${i}`));
    expect(new Set(results.map((r) => r.run_id)).size).toBe(12);
    const runs = await service.database.db.run.findMany({ where: { batchId: data.id } });
    expect(runs).toHaveLength(12);
    expect(runs.every((r) => r.status === "COMPLETED" && r.tokensCharged === 3)).toBe(true);
    const account = await service.database.db.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(account).toMatchObject({ balance: 1_000 - 36, reserved: 0 });
  });

  it("when OpenAI's client uploads a batch file, makes a batch of it and reads its files, then each line is answered in OpenAI's shapes, a bad one in the error file", async () => {
    const { liveKey } = await service.account(1_000);
    const openai = new OpenAI({ apiKey: liveKey, baseURL: `${service.base}/openai/v1` });
    const request = (custom_id: string, body: Record<string, unknown>) =>
      JSON.stringify({
        custom_id,
        method: "POST",
        url: "/v1/images/generations",
        body: { model: "batch/cog", ...body },
      });
    const jsonl = [
      request("r1", { prompt: "a fox", size: "1024x1024" }),
      request("r2", { prompt: "a cat", size: "9x9" }),
      request("r3", { prompt: "an owl" }),
    ].join("\n");
    const file = await openai.files.create({
      file: await toFile(Buffer.from(jsonl), "batch.jsonl"),
      purpose: "batch",
    });
    expect(file).toMatchObject({ object: "file", purpose: "batch", bytes: jsonl.length });
    const made = await openai.batches.create({
      input_file_id: file.id,
      endpoint: "/v1/images/generations" as "/v1/chat/completions",
      completion_window: "24h",
      metadata: { job: "catalogue" },
    });
    expect(made).toMatchObject({ object: "batch", status: "in_progress", metadata: { job: "catalogue" } });
    const done = await waitFor(
      async () => {
        const b = await openai.batches.retrieve(made.id);
        return b.status === "completed" ? b : null;
      },
      { what: "the OpenAI batch to complete", timeoutMs: 60_000 },
    );
    expect(done.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });
    expect(done.completed_at).toEqual(expect.any(Number));
    const read = async (id: string) =>
      (await (await openai.files.content(id)).text())
        .split("\n")
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as {
              custom_id: string;
              response: { status_code: number; body: { data: { url: string }[] } } | null;
              error: { code: string; message: string } | null;
            },
        );
    const output = await read(done.output_file_id!);
    expect(output.map((l) => [l.custom_id, l.response?.status_code, l.error])).toEqual([
      ["r1", 200, null],
      ["r3", 200, null],
    ]);
    expect(output[0]!.response!.body.data[0]!.url).toMatch(/^http/);
    const errors = await read(done.error_file_id!);
    expect(errors).toEqual([
      expect.objectContaining({
        custom_id: "r2",
        response: null,
        error: expect.objectContaining({ message: expect.stringMatching(/size/) as unknown }),
      }),
    ]);
    const listed = await openai.batches.list();
    expect(listed.data.map((b) => b.id)).toContain(made.id);
    // A purpose other than batch is refused naming it; a batch of someone else's file, naming input_file_id.
    const refused = await openai.files
      .create({ file: await toFile(Buffer.from(jsonl), "x.jsonl"), purpose: "assistants" })
      .catch((e: unknown) => e);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("purpose");
    const stranger = new OpenAI({
      apiKey: (await service.account(10)).liveKey,
      baseURL: `${service.base}/openai/v1`,
    });
    const foreign = await stranger.batches
      .create({
        input_file_id: file.id,
        endpoint: "/v1/images/generations" as "/v1/chat/completions",
        completion_window: "24h",
      })
      .catch((e: unknown) => e);
    expect((foreign as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("input_file_id");
  });

  it("when the SDK makes a batch and an operator lists and cancels batches with the CLI, then the lines it did not start end canceled and the workers' metrics show the batch lane", async () => {
    const { client, accountId } = await service.account(1_000);
    const made = await client.batches.create({
      model: "batch/cog",
      items: Array.from({ length: 30 }, (_, i) => ({ custom_id: `m${i}`, input: { prompt: `m${i}` } })),
    });
    expect((await client.batches.get(made.id)).counts.total).toBe(30);
    expect((await client.batches.list()).batches.map((b) => b.id)).toContain(made.id);
    await waitFor(async () => (await client.batches.get(made.id)).counts.completed >= 1, {
      what: "an item done",
    });
    const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(scraped).toMatch(/^svc_batch_items\{model="batch\/cog",state="pending"\} [1-9]\d*$/m);
    const listed = await adminCli(service.database.db, ["batches", "list", "--account", accountId]);
    expect(listed).toEqual([expect.objectContaining({ id: made.id, status: "in_progress", total: 30 })]);
    await adminCli(service.database.db, ["batches", "cancel", made.id]);
    const done = await ended("", made.id, "canceled", client);
    const results = await client.batches.results(made.id);
    expect(results).toHaveLength(30);
    expect(results.filter((r) => r.status === "canceled").length).toBeGreaterThan(20);
    expect(done.counts.completed).toBe(results.filter((r) => r.status === "completed").length);
    expect(await client.batches.results(made.id, "errors")).toHaveLength(30 - done.counts.completed);
  });

  it("when tokens run out midway, then admission pauses saying why and goes on once tokens arrive; past its window a batch expires, its waiting lines with it", async () => {
    const { liveKey, accountId } = await service.account(7);
    const made = await json(liveKey, "/batches", {
      model: "batch/cog",
      items: Array.from({ length: 4 }, (_, i) => ({ input: { prompt: `t${i}` } })),
    });
    const { data } = (await made.json()) as { data: BatchView };
    // 7 tokens pay for two items of 3.
    const paused = await waitFor(
      async () => {
        const b = (await (await api(liveKey, `/batches/${data.id}`)).json()) as {
          data: BatchView & { paused_reason: string | null };
        };
        return b.data.paused_reason === "insufficient_tokens" && b.data.counts.completed === 2
          ? b.data
          : null;
      },
      { what: "the batch to pause on tokens" },
    );
    expect(paused.counts.pending).toBe(2);
    await adminCli(service.database.db, ["tokens", "grant", "--account", accountId, "--amount", "100"]);
    const done = await ended(liveKey, data.id);
    expect(done).toMatchObject({ counts: { completed: 4 }, tokens_charged: 12 });

    const late = await json(liveKey, "/batches", {
      model: "batch/cog",
      items: Array.from({ length: 40 }, (_, i) => ({ input: { prompt: `l${i}` } })),
    });
    const lateBatch = ((await late.json()) as { data: BatchView }).data;
    await waitFor(async () => (await batchOf(liveKey, lateBatch.id)).counts.completed >= 1, {
      what: "an item done",
    });
    await service.database.db.batch.update({
      where: { id: lateBatch.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    const expired = await ended(liveKey, lateBatch.id, "expired");
    const results = await lines(liveKey, lateBatch.id);
    expect(results.filter((r) => r.status === "expired").length).toBeGreaterThan(30);
    expect(results.find((r) => r.status === "expired")!.error).toMatchObject({ code: "batch_expired" });
    await waitFor(async () => (await batchOf(liveKey, lateBatch.id)).counts.running === 0, {
      what: "its runs to end",
    });
    const account = await service.database.db.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(account.reserved).toBe(0);
    expect(expired.status).toBe("expired");
  });

  it("when a batch ends, then its webhook_url and the endpoints that subscribe get a signed batch event, recorded once", async () => {
    const { liveKey } = await service.account(1_000);
    const receiver = await startHttpsReceiver();
    try {
      const endpoint = (await (
        await json(liveKey, "/webhooks", { url: receiver.url("/endpoint"), events: ["batch.completed"] })
      ).json()) as {
        data: { id: string };
      };
      const secret = (await (await api(liveKey, "/webhooks/default/secret")).json()) as {
        data: { signing_secret: string };
      };
      const made = await json(liveKey, "/batches", {
        model: "batch/cog",
        webhook_url: receiver.url("/own"),
        metadata: { job: "w" },
        items: [{ input: { prompt: "w1" } }, { input: { prompt: "" } }],
      });
      const { data } = (await made.json()) as { data: BatchView };
      await ended(liveKey, data.id);
      const got = await receiver.waitForRequests(2);
      const own = got.find((r) => r.path === "/own")!;
      const body = JSON.parse(own.body) as {
        event: string;
        webhook_id: string | null;
        data: Record<string, unknown>;
      };
      expect(body).toMatchObject({
        event: "batch.completed",
        webhook_id: null,
        data: {
          batch_id: data.id,
          model_id: "batch/cog",
          status: "completed",
          counts: { total: 2, completed: 1, failed: 1 },
          tokens_charged: 3,
          metadata: { job: "w" },
        },
      });
      const signature = createHmac("sha256", secret.data.signing_secret).update(own.body).digest("hex");
      expect(own.headers["x-service-signature"]).toBe(`sha256=${signature}`);
      const toEndpoint = JSON.parse(got.find((r) => r.path === "/endpoint")!.body) as { webhook_id: string };
      expect(toEndpoint.webhook_id).toBe(endpoint.data.id);
      // Once: the statement that ended the batch recorded them.
      const recorded = await service.database.db.delivery.count({
        where: { event: "batch.completed", body: { contains: data.id } },
      });
      expect(recorded).toBe(2);
    } finally {
      await receiver.close();
    }
  });

  it("when the batch's key may no longer run its model, then its lines not yet admitted end refused, saying why", async () => {
    const { liveKey, accountId } = await service.account(7);
    const made = await json(liveKey, "/batches", {
      model: "batch/cog",
      items: Array.from({ length: 5 }, (_, i) => ({ input: { prompt: `a${i}` } })),
    });
    const { data } = (await made.json()) as { data: BatchView };
    await waitFor(async () => (await batchOf(liveKey, data.id)).counts.completed === 2, {
      what: "two items done",
    });
    const key = await service.database.db.apiKey.findFirstOrThrow({ where: { accountId, mode: "live" } });
    await service.database.db.apiKey.update({
      where: { id: key.id },
      data: { allowedModels: ["acme/echo"] },
    });
    await adminCli(service.database.db, ["tokens", "grant", "--account", accountId, "--amount", "100"]);
    const done = await ended(liveKey, data.id);
    expect(done.counts).toMatchObject({ completed: 2, failed: 3 });
    const errors = await lines(liveKey, data.id, "errors");
    expect(errors.map((e) => e.error?.code)).toEqual([
      "model_not_allowed",
      "model_not_allowed",
      "model_not_allowed",
    ]);
  });
});
