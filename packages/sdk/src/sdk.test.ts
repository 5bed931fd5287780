import {
  deleteRedisPrefix,
  startHttpsReceiver,
  startService,
  waitFor,
  type HttpsReceiver,
  type TestService,
} from "@svc/testkit";
import {
  ModelRunClient,
  ModelRunError,
  RunFailedError,
  verifyWebhook,
  WebhookVerificationError,
} from "./index.js";

// The SDK against the real service: the built API and worker as processes, on 127.0.0.1.
describe("SDK against the running API", () => {
  let service: TestService;
  let receiver: HttpsReceiver;
  let base: string;
  let limitedBase: string;
  let limitedPrefix: string;
  let client: ModelRunClient;
  let liveKey: string;

  beforeAll(async () => {
    service = await startService({ RATE_LIMIT_ENABLED: "true" });
    ({ liveKey } = await service.account(10_000));
    ({ base } = await service.startApi());
    // Same service, tight limits: 2 requests and 1 run creation per 2-second window.
    limitedPrefix = `${service.prefix}_limited`;
    ({ base: limitedBase } = await service.startApi({
      QUEUE_PREFIX: limitedPrefix,
      RATE_LIMIT_PER_MINUTE: "2",
      RATE_LIMIT_RUNS_PER_MINUTE: "1",
      RATE_LIMIT_WINDOW_SECONDS: "2",
    }));
    await service.startWorker({ WEBHOOK_BACKOFF_BASE_MS: "50" });
    client = new ModelRunClient({ apiKey: liveKey, baseUrl: base });
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await deleteRedisPrefix(limitedPrefix);
    await service?.stop();
  });

  it("when models are listed and read, then typed data comes back, ids with slashes included", async () => {
    const list = await client.models.list({ category: "image", limit: 10 });
    expect(list.models.map((m) => m.id)).toContain("acme/pixel/fast");
    const fast = await client.models.get("acme/pixel/fast");
    expect(fast.pricing.tokens_per_unit).toBe(2);
  });

  it("when run() is called, then it resolves with the completed run and its outputs", async () => {
    const run = await client.run("test/instant", { input: { prompt: "sdk", num_images: 2 } });
    expect(run).toMatchObject({ status: "COMPLETED", tokens_charged: 10 });
    expect(run.output?.images).toHaveLength(2);
    const listed = await client.runs.list({ status: "COMPLETED", limit: 5 });
    expect(listed.runs.map((r) => r.run_id)).toContain(run.run_id);
  });

  it("when a run fails, then run() rejects with RunFailedError carrying the run's error", async () => {
    const { testKey } = await service.account(1000);
    const testClient = new ModelRunClient({ apiKey: testKey, baseUrl: base });
    const error = await testClient
      .run("test/timeout", { input: { prompt: "too slow" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    expect((error as RunFailedError).run.error?.code).toBe("TIMEOUT");
  });

  it("when the AbortSignal fires while waiting, then run() rejects and the run is canceled on the server", async () => {
    const controller = new AbortController();
    const waiting = client.run("test/slow", { input: { prompt: "stop" } }, { signal: controller.signal });
    const created = await waitFor(async () => {
      const page = await client.runs.list({ status: "EXECUTING", model_id: "test/slow" });
      return page.runs[0] ?? null;
    });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect((await client.runs.get(created.run_id)).status).toBe("CANCELED");
  });

  it("when the wait times out, then run() rejects with a TimeoutError and the run is canceled on the server", async () => {
    const started = Date.now();
    const error = await client
      .run("test/slow", { input: { prompt: "timeout" } }, { timeoutMs: 600 })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("TimeoutError");
    expect(Date.now() - started).toBeLessThan(3000);
    const [run] = (await client.runs.list({ model_id: "test/slow", limit: 1 })).runs;
    expect(run?.status).toBe("CANCELED");
  });

  it("when the account is read, then balance, ledger pages by run and daily usage agree with a run's charge", async () => {
    const run = await client.run("test/instant", { input: { prompt: "for the ledger" } });
    const account = await client.account.get();
    expect(account).toMatchObject({ mode: "live", available: account.balance - account.reserved });
    const ledger = await client.account.ledger({ run_id: run.run_id });
    expect(ledger.entries.map((e) => e.kind).sort()).toEqual(["CHARGE", "RESERVE"]);
    const usage = await client.account.usage({ days: 3 });
    expect(usage.days).toHaveLength(3);
    expect(usage.days.at(-1)!.tokens_charged).toBeGreaterThanOrEqual(5);
  });

  it("when an endpoint's events are updated, then exactly those are kept", async () => {
    const endpoint = await client.webhooks.create({ url: "https://example.com/sdk-update" });
    const updated = await client.webhooks.update(endpoint.id, { events: ["run.canceled"] });
    expect(updated.events).toEqual(["run.canceled"]);
    await client.webhooks.delete(endpoint.id);
  });

  it("when the API answers an error, then ModelRunError carries status, code, details and request id", async () => {
    const error = await client.runs
      .create("acme/pixel-hq", { input: { num_images: 9 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRunError);
    expect(error).toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR",
      requestId: expect.stringMatching(/^req_/),
    });
    expect((error as ModelRunError).details?.map((d) => d.path).sort()).toEqual([
      "input.num_images",
      "input.prompt",
    ]);
    await expect(client.runs.get("run_missing")).rejects.toMatchObject({
      status: 404,
      code: "RUN_NOT_FOUND",
    });
  });

  it("when a real delivery arrives, then verifyWebhook accepts it and refuses tampering, a wrong secret and an old timestamp", async () => {
    const endpoint = await client.webhooks.create({ url: receiver.url("/sdk") });
    const run = await client.run("test/instant", { input: { prompt: "signed for the sdk" } });
    const [delivery] = await receiver.waitForRequests(1);
    const event = verifyWebhook({
      body: delivery!.body,
      headers: delivery!.headers,
      secret: endpoint.signing_secret,
    });
    expect(event).toMatchObject({
      event: "run.completed",
      webhook_id: endpoint.id,
      data: { run_id: run.run_id, tokens_charged: 5 },
    });
    const otherSecret = await client.webhooks.defaultSecret();
    const tampered = delivery!.body.replace('"tokens_charged":5', '"tokens_charged":0');
    expect(() =>
      verifyWebhook({ body: tampered, headers: delivery!.headers, secret: endpoint.signing_secret }),
    ).toThrow(WebhookVerificationError);
    expect(() =>
      verifyWebhook({
        body: delivery!.body,
        headers: delivery!.headers,
        secret: otherSecret,
      }),
    ).toThrow(WebhookVerificationError);
    expect(() =>
      verifyWebhook({
        body: delivery!.body,
        headers: delivery!.headers,
        secret: endpoint.signing_secret,
        now: new Date(Date.now() + 3600_000),
      }),
    ).toThrow(/tolerance/);
    // Only the body signature (X-Service-Signature) is enough too.
    const {
      "webhook-signature": _s,
      "webhook-id": _i,
      "webhook-timestamp": _t,
      ...serviceOnly
    } = delivery!.headers;
    expect(
      verifyWebhook({ body: delivery!.body, headers: serviceOnly, secret: endpoint.signing_secret }).event,
    ).toBe("run.completed");
  });

  it("when the API answers 429, then idempotent calls wait Retry-After and succeed; a creation without a key is not retried", async () => {
    const limited = new ModelRunClient({ apiKey: liveKey, baseUrl: limitedBase });
    // Start at the beginning of a fresh window.
    await waitFor(async () => {
      const res = await fetch(`${limitedBase}/api/v1/models`, {
        headers: { authorization: `Bearer ${liveKey}` },
      });
      return res.status === 429 ? true : null;
    });
    const started = Date.now();
    const list = await limited.models.list();
    expect(list.total).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);

    await limited.runs.create("test/instant", { input: { prompt: "first" } });
    const refused = await limited.runs
      .create("test/instant", { input: { prompt: "second" } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    const keyed = await limited.runs.create(
      "test/instant",
      { input: { prompt: "third" } },
      { idempotencyKey: "sdk-retry-1" },
    );
    expect(keyed.status).toBe("queued");
  });
});
