import { verify as verifyServiceSignature } from "@octokit/webhooks-methods";
import { parseSse, type AnyRun, type CreatedRun, type ModelRunClient, type RunEvent } from "@svc/sdk";
import { startHttpsReceiver, waitFor } from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// The real API and worker processes, followed over HTTP as clients do: Prefer: wait, event
// streams with Last-Event-ID, queue positions, Cancel-After and run.started webhooks.
describe("real time", () => {
  let service: E2EService;
  let base: string;
  let liveKey: string;
  let client: ModelRunClient;

  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: object) =>
    fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${liveKey}`,
        ...(body && { "content-type": "application/json" }),
        ...headers,
      },
      body: body && JSON.stringify(body),
    });
  const create = async (model: string, input: object, headers: Record<string, string> = {}, extra = {}) => {
    const res = await call("POST", `/models/${model}/run`, headers, { input, ...extra });
    expect(res.status).toBe(201);
    return { res, run: ((await res.json()) as { data: CreatedRun }).data };
  };
  const body = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
  const read = async (runId: string) => body<AnyRun>(await call("GET", `/runs/${runId}`));
  const collect = async (runId: string) => {
    const events: RunEvent[] = [];
    for await (const event of client.stream(runId)) events.push(event);
    return events;
  };

  beforeAll(async () => {
    service = await startService({ SWEEP_INTERVAL_MS: "500" });
    ({ base } = await service.startApi({ EVENTS_HEARTBEAT_MS: "1000" }));
    ({ liveKey, client } = await service.account(10_000));
  });
  afterAll(() => service?.stop());

  it("when 20 runs wait for a worker, then their queue positions are 1..20 and move as runs start", async () => {
    const runs: string[] = [];
    for (let i = 0; i < 20; i++)
      runs.push((await create("test/steps", { prompt: `queued ${i}` })).run.run_id);
    const views = await Promise.all(runs.map(read));
    expect(views.map((v) => v.queue_position)).toEqual(runs.map((_, i) => i + 1));
    // No worker is alive: nothing honest can be said about when they start.
    expect(views.every((v) => v.status === "QUEUED" && v.estimated_start_at === null)).toBe(true);
    const model = await client.models.get("test/steps");
    expect(model.queue_length).toBe(20);

    await service.startWorker({ WORKER_CONCURRENCY: "1" });
    const moved = await waitFor(
      async () => {
        const now = await Promise.all(runs.map(read));
        const queued = now.filter((v) => v.status === "QUEUED");
        return queued.length <= 15 && now.some((v) => v.status === "COMPLETED") ? queued : null;
      },
      { what: "the queue to move", intervalMs: 50 },
    );
    // The runs still waiting keep consecutive places, the first now at the head.
    const positions = moved.map((v) => v.queue_position!);
    expect(positions[0]).toBeLessThanOrEqual(2);
    for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThanOrEqual(positions[i - 1]!);
    expect(positions.at(-1)).toBeLessThan(20);
    // A worker is alive and runs have finished: the estimate is a time ahead, later for later runs.
    const estimates = await waitFor(
      async () => {
        const [a, b] = await Promise.all([read(runs.at(-2)!), read(runs.at(-1)!)]);
        return b.status === "QUEUED" && b.estimated_start_at ? [a, b] : null;
      },
      { what: "an estimate for the last run", intervalMs: 50 },
    );
    const [before, last] = estimates.map((v) => Date.parse(v.estimated_start_at ?? ""));
    expect(last).toBeGreaterThan(Date.now());
    expect(last).toBeGreaterThan(before!);
    await waitFor(async () => ((await read(runs.at(-1)!)).status === "COMPLETED" ? true : null), {
      what: "the queue to drain",
      timeoutMs: 30_000,
    });
    const drained = await client.models.get("test/steps");
    expect(drained.queue_length).toBe(0);
    expect(drained.run_time_p50_ms).toBeGreaterThanOrEqual(250);
  });

  it("when a fast run is created with Prefer: wait, then one call answers with its result", async () => {
    const { res, run } = await create("acme/echo", { prompt: "one call" }, { prefer: "wait=10" });
    expect(res.headers.get("preference-applied")).toBe("wait=10");
    expect(run).toEqual({
      run_id: expect.stringMatching(/^run_/),
      status: "COMPLETED",
      model_id: "acme/echo",
      model_name: "Echo",
      estimated_tokens: 1,
      is_test_request: false,
      created_at: expect.any(String),
      output: { echo: { prompt: "one call" } },
      tokens_charged: 1,
      completed_at: expect.any(String),
      duration_ms: expect.any(Number),
    });
  });

  it("when a slow run outlasts Prefer: wait, then the answer is the usual queued one and a long poll gets the end", async () => {
    const started = Date.now();
    const { res, run } = await create("test/slow", { prompt: "slow" }, { prefer: "wait=1" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(res.headers.get("preference-applied")).toBe("wait=1");
    expect(run.status).toBe("queued");
    expect(run.output).toBeUndefined();
    const polled = await call("GET", `/runs/${run.run_id}`, { prefer: "wait=20" });
    expect(polled.headers.get("preference-applied")).toBe("wait=20");
    expect(await body(polled)).toMatchObject({ run_id: run.run_id, status: "COMPLETED" });
  });

  it("when Prefer asks for a wait outside 1..60 s, then the answer is 400 and no run is created", async () => {
    const before = await service.database.db.run.count();
    const res = await call(
      "POST",
      "/models/acme/echo/run",
      { prefer: "wait=61" },
      { input: { prompt: "x" } },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe(
      "prefer",
    );
    expect(await service.database.db.run.count()).toBe(before);
  });

  it("when a run is streamed, then QUEUED, EXECUTING, progress and COMPLETED arrive in order and the stream ends", async () => {
    const { run } = await create("test/steps", { prompt: "streamed", num_images: 2 });
    const events = await collect(run.run_id);
    const shape = events.map((e) =>
      e.type === "status" ? e.run.status : `progress ${e.progress.completed}/${e.progress.total}`,
    );
    expect(shape).toEqual(["QUEUED", "EXECUTING", "progress 1/2", "progress 2/2", "COMPLETED"]);
    const done = events.at(-1)!;
    expect(done.type === "status" && done.run).toEqual(await read(run.run_id));
    expect(events.every((e) => /^\d+-\d+$/.test(e.id!))).toBe(true);
  });

  it("when a stream is cut and resumed with Last-Event-ID, then the events after it arrive, none missed or repeated", async () => {
    const { run } = await create("test/steps", { prompt: "resumed", num_images: 3 });
    // First connection: read up to the first progress event, then hang up.
    const first: { id?: string; event: string }[] = [];
    const controller = new AbortController();
    const res = await call("GET", `/runs/${run.run_id}/events`, { accept: "text/event-stream" });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    for await (const message of parseSse(res.body!)) {
      if (!message.event) continue;
      first.push(message);
      if (message.event === "progress") break;
    }
    controller.abort();
    const resumed = await collect_after(first.at(-1)!.id!);
    const everything = (await collect(run.run_id)).map((e) => e.id);
    expect([...first.map((m) => m.id), ...resumed]).toEqual(everything);
    expect(everything).toHaveLength(2 + 3 + 1);

    async function collect_after(lastEventId: string) {
      const ids: (string | undefined)[] = [];
      for await (const event of client.stream(run.run_id, { lastEventId })) ids.push(event.id);
      return ids;
    }
  });

  it("when the stream of an unknown run is asked for, then it is a plain 404 RUN_NOT_FOUND", async () => {
    const res = await call("GET", "/runs/run_doesnotexist0000000000/events", { accept: "text/event-stream" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("RUN_NOT_FOUND");
  });

  it("when a run outlives its Cancel-After, then it is canceled with the reason and its tokens are refunded", async () => {
    const before = await client.account.get();
    const { run } = await create(
      "test/slow",
      { prompt: "deadline", num_images: 2 },
      { "cancel-after": "1s" },
    );
    const ended = await body(await call("GET", `/runs/${run.run_id}`, { prefer: "wait=20" }));
    expect(ended).toMatchObject({
      status: "CANCELED",
      tokens_charged: 0,
      error: { code: "CANCEL_AFTER", message: expect.stringContaining("Cancel-After") },
    });
    const after = await client.account.get();
    expect([after.balance, after.reserved]).toEqual([before.balance, before.reserved]);
    const ledger = await service.database.db.ledgerEntry.findMany({
      where: { runId: run.run_id },
      orderBy: { createdAt: "asc" },
    });
    expect(ledger.map((e) => [e.kind, e.amount])).toEqual([
      ["RESERVE", 10],
      ["RELEASE", 10],
    ]);
  });

  it("when Cancel-After is malformed or out of bounds, then the answer is 400", async () => {
    for (const value of ["soon", "0s", "25h", "5x"]) {
      const res = await call(
        "POST",
        "/models/acme/echo/run",
        { "cancel-after": value },
        { input: { prompt: "x" } },
      );
      expect(res.status).toBe(400);
    }
  });

  it("when a run asks for started events, then run.started and run.completed are delivered, signed, in order", async () => {
    const receiver = await startHttpsReceiver();
    try {
      const { signing_secret: secret } = await body<{ signing_secret: string }>(
        await call("GET", "/webhooks/default/secret"),
      );
      const endpoint = await body<{ id: string; signing_secret: string }>(
        await call("POST", "/webhooks", {}, { url: receiver.url("/endpoint"), events: ["run.started"] }),
      );
      const { run } = await create(
        "test/instant",
        { prompt: "started" },
        {},
        { webhook_url: receiver.url("/per-run"), webhook_events_filter: ["started", "completed"] },
      );
      const requests = await receiver.waitForRequests(3);
      const perRun = requests.filter((r) => r.path === "/per-run").map((r) => JSON.parse(r.body));
      const view = await read(run.run_id);
      expect(perRun.map((b) => b.event)).toEqual(["run.started", "run.completed"]);
      expect(perRun[0]).toEqual({
        event: "run.started",
        data: { run_id: run.run_id, model_id: "test/instant", started_at: expect.any(String) },
      });
      const toEndpoint = requests.find((r) => r.path === "/endpoint")!;
      const sent = JSON.parse(toEndpoint.body);
      expect(sent).toEqual({
        event: "run.started",
        webhook_id: endpoint.id,
        data: {
          run_id: run.run_id,
          model_id: "test/instant",
          started_at: sent.data.started_at,
          timestamp: sent.data.started_at,
        },
        created_at: sent.data.started_at,
      });
      expect(Date.parse(sent.data.started_at)).toBeLessThanOrEqual(Date.parse(view.completed_at!));
      expect(toEndpoint.headers["x-service-event"]).toBe("run.started");
      for (const [req, key] of [
        [requests.find((r) => r.path === "/per-run")!, secret],
        [toEndpoint, endpoint.signing_secret],
      ] as const)
        expect(await verifyServiceSignature(key, req.body, String(req.headers["x-service-signature"]))).toBe(
          true,
        );
    } finally {
      await receiver.close();
    }
  });

  it("when the SDK's run() meets a run longer than its wait, then it follows the event stream to the result", async () => {
    const run = await client.run("test/slow", { input: { prompt: "sdk" } }, { wait: 1 });
    expect(run).toMatchObject({ status: "COMPLETED", output: { images: [expect.any(String)] } });
  });
});
