import { verify as verifyServiceSignature } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import { ModelRunClient, ModelRunError, type Delivery, type EventType } from "@svc/sdk";
import { DEAD_REDIS_URL, startHttpsReceiver, waitFor, type HttpsReceiver } from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// Webhook deliveries from the built worker, to real HTTPS receivers on 127.0.0.1, with the API
// driven through the SDK.
const WORKER_ENV = {
  // The sweeper looks every 200 ms, at deliveries of any age (one whose job was lost).
  SWEEP_INTERVAL_MS: "200",
  SWEEP_QUEUED_AFTER_MS: "0",
  WEBHOOK_BACKOFF_BASE_MS: "100",
  WEBHOOK_TIMEOUT_MS: "400",
  CONTENT_POLICY_BLOCKLIST: "forbidden",
};

function helpers(service: E2EService) {
  const { db } = service.database;
  return {
    register: (client: ModelRunClient, url: string, events?: EventType[]) =>
      client.webhooks.create(events ? { url, events } : { url }),
    run: async (client: ModelRunClient, model: string, input: Record<string, unknown>, webhookUrl?: string) =>
      (await client.runs.create(model, { input, ...(webhookUrl && { webhook_url: webhookUrl }) })).run_id,
    sendTest: async (client: ModelRunClient, endpointId: string) =>
      (await client.webhooks.test(endpointId)).delivery_id,
    deliveries: async (client: ModelRunClient, endpointId: string) =>
      (await client.webhooks.deliveries(endpointId, { limit: 100 })).deliveries,
    /** Waits until the delivery has a final status and returns it. */
    settled: (deliveryId: string) =>
      waitFor(
        async () => {
          const d = await db.delivery.findUnique({
            where: { id: deliveryId },
            include: { attempts: { orderBy: { number: "asc" } } },
          });
          return d && d.status !== "pending" ? d : null;
        },
        { what: `delivery ${deliveryId} to finish` },
      ),
    runDeliveriesFinal: (runId: string) =>
      waitFor(async () => {
        const ds = await db.delivery.findMany({ where: { runId } });
        return ds.length > 0 && ds.every((d) => d.status !== "pending") ? ds : null;
      }),
    runStatus: async (runId: string) => (await db.run.findUnique({ where: { id: runId } }))?.status,
  };
}

describe("webhook deliveries end to end", () => {
  let service: E2EService;
  let h: ReturnType<typeof helpers>;
  const receivers: HttpsReceiver[] = [];
  const receiver = async (...args: Parameters<typeof startHttpsReceiver>) => {
    const r = await startHttpsReceiver(...args);
    receivers.push(r);
    return r;
  };
  const client = async () => (await service.account(1000)).client;

  beforeAll(async () => {
    service = await startService();
    await service.startApi();
    await service.startWorker(WORKER_ENV);
    h = helpers(service);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await service?.stop();
  });

  it("when a run completes, then its webhook_url and a registered endpoint get the spec's payloads, signed verifiably", async () => {
    const auth = await client();
    const r = await receiver();
    const endpoint = await h.register(auth, r.url("/endpoint"));
    const defaultSecret = await auth.webhooks.defaultSecret();
    const runId = await h.run(auth, "test/instant", { prompt: "signed" }, r.url("/per-run"));
    await r.waitForRequests(2);
    const perRun = r.requests.find((q) => q.path === "/per-run")!;
    const toEndpoint = r.requests.find((q) => q.path === "/endpoint")!;
    const run = await auth.runs.get(runId);
    if (run.status !== "COMPLETED") throw new Error(`run ${runId} is ${run.status}`);

    expect(JSON.parse(perRun.body)).toEqual({
      event: "run.completed",
      data: { run_id: runId, model_id: "test/instant", result: run.output, tokens_charged: 5 },
    });
    expect(JSON.parse(toEndpoint.body)).toEqual({
      event: "run.completed",
      webhook_id: endpoint.id,
      data: {
        run_id: runId,
        model_id: "test/instant",
        result: run.output,
        tokens_charged: 5,
        timestamp: run.completed_at,
      },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    for (const [req, secret] of [
      [perRun, defaultSecret],
      [toEndpoint, endpoint.signing_secret],
    ] as const) {
      expect(req.headers["content-type"]).toBe("application/json");
      expect(req.headers["x-service-event"]).toBe("run.completed");
      expect(req.headers["x-service-delivery"]).toMatch(/^whd_/);
      expect(req.headers["webhook-id"]).toBe(req.headers["x-service-delivery"]);
      expect(await verifyServiceSignature(secret, req.body, String(req.headers["x-service-signature"]))).toBe(
        true,
      );
      expect(
        await verifyServiceSignature(
          secret,
          req.body.replace("test/instant", "test/instanT"),
          String(req.headers["x-service-signature"]),
        ),
      ).toBe(false);
      const standard = new Webhook(secret);
      const headers = req.headers as Record<string, string>;
      expect(standard.verify(req.body, headers)).toEqual(JSON.parse(req.body));
      expect(() => standard.verify(`${req.body} `, headers)).toThrow();
    }
    expect(perRun.headers["x-service-delivery"]).not.toBe(toEndpoint.headers["x-service-delivery"]);
  });

  it("when the receiver fails twice and then answers 200, then there are exactly 3 attempts, each after its doubling backoff, and one success", async () => {
    const auth = await client();
    const r = await receiver((_req, i) => ({ status: i < 2 ? 500 : 200 }));
    const endpoint = await h.register(auth, r.url());
    const deliveryId = await h.sendTest(auth, endpoint.id);
    const done = await h.settled(deliveryId);
    expect(done.status).toBe("succeeded");
    expect(r.requests).toHaveLength(3);
    const [a, b, c] = r.requests.map((q) => q.at) as [number, number, number];
    // The backoff doubles from WEBHOOK_BACKOFF_BASE_MS (100, then 200 ms): each retry comes no
    // earlier than its delay. (Not "each gap longer than the last": a delayed job's promotion adds
    // up to ~200 ms on a busy machine, more than the delays differ.)
    expect(b - a).toBeGreaterThanOrEqual(90);
    expect(c - b).toBeGreaterThanOrEqual(190);
    expect(new Set(r.requests.map((q) => q.headers["x-service-delivery"]))).toEqual(new Set([deliveryId]));
    const [log] = (await h.deliveries(auth, endpoint.id)) as [Delivery];
    expect(log).toMatchObject({ id: deliveryId, event: "webhook.test", status: "succeeded" });
    expect(log.attempts.map((x) => [x.status_code, x.success])).toEqual([
      [500, false],
      [500, false],
      [200, true],
    ]);
    expect(log.attempts[0]).toMatchObject({
      number: 1,
      error_class: "http_status",
      duration_ms: expect.any(Number),
      started_at: expect.any(String),
    });
  });

  it("when the receiver always fails, then each delivery gets exactly 4 attempts and counts one failure", async () => {
    const auth = await client();
    const r = await receiver(() => ({ status: 503 }));
    const endpoint = await h.register(auth, r.url());
    const done = await h.settled(await h.sendTest(auth, endpoint.id));
    expect(done.status).toBe("failed");
    expect(done.attempts).toHaveLength(4);
    expect(r.requests).toHaveLength(4);
    expect(await auth.webhooks.get(endpoint.id)).toMatchObject({ status: "active", consecutive_failures: 1 });
  });

  it("when a receiver redirects or answers too slowly, then the attempts fail as redirect and timeout", async () => {
    const auth = await client();
    const redirecting = await receiver(() => ({
      status: 302,
      headers: { location: "https://example.com/" },
    }));
    const slow = await receiver(() => ({ status: 200, delayMs: 1500 }));
    const [toRedirect, toSlow] = [
      await h.register(auth, redirecting.url()),
      await h.register(auth, slow.url()),
    ];
    const [redirected, timedOut] = await Promise.all([
      h.settled(await h.sendTest(auth, toRedirect.id)),
      h.settled(await h.sendTest(auth, toSlow.id)),
    ]);
    expect(redirected.status).toBe("failed");
    expect(redirected.attempts.map((a) => [a.statusCode, a.errorClass])).toEqual(
      Array(4).fill([302, "redirect"]),
    );
    expect(timedOut.status).toBe("failed");
    expect(timedOut.attempts.map((a) => a.errorClass)).toEqual(Array(4).fill("timeout"));
    expect(timedOut.attempts.every((a) => a.durationMs >= 350 && a.durationMs < 1400)).toBe(true);
  });

  it("when deliveries keep failing, then 9 leave the endpoint active, a success resets, 10 in a row disable it, and enable restores it", async () => {
    const auth = await client();
    let failing = true;
    const r = await receiver(() => ({ status: failing ? 500 : 200 }));
    const endpoint = await h.register(auth, r.url());
    const failMany = async (n: number) => {
      const ids = await Promise.all(Array.from({ length: n }, () => h.sendTest(auth, endpoint.id)));
      await Promise.all(ids.map(h.settled));
    };

    await failMany(9);
    expect(await auth.webhooks.get(endpoint.id)).toMatchObject({ status: "active", consecutive_failures: 9 });
    failing = false;
    expect((await h.settled(await h.sendTest(auth, endpoint.id))).status).toBe("succeeded");
    expect(await auth.webhooks.get(endpoint.id)).toMatchObject({ status: "active", consecutive_failures: 0 });
    failing = true;
    await failMany(10);
    const disabled = await auth.webhooks.get(endpoint.id);
    expect(disabled).toMatchObject({
      status: "disabled",
      consecutive_failures: 10,
      disabled_at: expect.any(String),
    });

    // A disabled endpoint gets nothing: no delivery for a finished run, a test delivery is dropped.
    const before = r.requests.length;
    const runId = await h.run(auth, "test/instant", { prompt: "nobody listens" });
    await waitFor(async () => (await h.runStatus(runId)) === "COMPLETED");
    expect(await service.database.db.delivery.count({ where: { runId } })).toBe(0);
    const dropped = await h.settled(await h.sendTest(auth, endpoint.id));
    expect(dropped).toMatchObject({ status: "failed", attempts: [] });
    expect(r.requests.length).toBe(before);

    failing = false;
    const enabled = await auth.webhooks.enable(endpoint.id);
    expect(enabled).toMatchObject({ status: "active", consecutive_failures: 0, disabled_at: null });
    expect((await h.settled(await h.sendTest(auth, endpoint.id))).status).toBe("succeeded");
  });

  it("when runs finish, then only matching subscriptions of the same account and mode receive, and deleted endpoints nothing", async () => {
    const owner = await service.account(1000);
    const stranger = await service.account(1000);
    const live = owner.client;
    const r = await receiver();
    const all = await h.register(live, r.url("/all"));
    const failedOnly = await h.register(live, r.url("/failed-only"), ["run.failed"]);
    const canceledOnly = await h.register(live, r.url("/canceled-only"), ["run.canceled"]);
    const deleted = await h.register(live, r.url("/deleted"));
    await live.webhooks.delete(deleted.id);
    await h.register(owner.testClient, r.url("/test-mode"));
    await h.register(stranger.client, r.url("/stranger"));

    const completed = await h.run(live, "test/instant", { prompt: "fine" });
    const failed = await h.run(live, "test/instant", { prompt: "something forbidden" }, r.url("/per-run"));
    await Promise.all([h.runDeliveriesFinal(completed), h.runDeliveriesFinal(failed)]);
    const slow = await h.run(live, "test/slow", { prompt: "stop me" });
    await waitFor(async () => (await h.runStatus(slow)) === "EXECUTING");
    await live.runs.cancel(slow);
    await h.runDeliveriesFinal(slow);

    const got = (path: string) => r.requests.filter((q) => q.path === path).map((q) => JSON.parse(q.body));
    expect(got("/all").map((p) => [p.event, p.data.run_id])).toEqual(
      expect.arrayContaining([
        ["run.completed", completed],
        ["run.failed", failed],
      ]),
    );
    expect(got("/all")).toHaveLength(2);
    expect(got("/failed-only")).toEqual([
      {
        event: "run.failed",
        webhook_id: failedOnly.id,
        data: {
          run_id: failed,
          model_id: "test/instant",
          error: { code: "CONTENT_POLICY", message: expect.any(String) },
          tokens_charged: 0,
          timestamp: expect.any(String),
        },
        created_at: expect.any(String),
      },
    ]);
    expect(got("/per-run")).toEqual([
      {
        event: "run.failed",
        data: {
          run_id: failed,
          model_id: "test/instant",
          error: { code: "CONTENT_POLICY", message: expect.any(String) },
          tokens_charged: 0,
        },
      },
    ]);
    expect(got("/canceled-only")).toEqual([
      {
        event: "run.canceled",
        webhook_id: canceledOnly.id,
        data: {
          run_id: slow,
          model_id: "test/slow",
          canceled_at: expect.any(String),
          tokens_charged: 0,
          timestamp: expect.any(String),
        },
        created_at: expect.any(String),
      },
    ]);
    expect(got("/deleted")).toEqual([]);
    expect(got("/test-mode")).toEqual([]);
    expect(got("/stranger")).toEqual([]);
    expect(all.id).toMatch(/^wh_/);
  });

  it("when a delivery is redelivered, then the receiver gets the same body under a new delivery id", async () => {
    const auth = await client();
    const r = await receiver();
    const endpoint = await h.register(auth, r.url());
    const first = await h.sendTest(auth, endpoint.id);
    await h.settled(first);
    const again = await auth.webhooks.redeliver(endpoint.id, first);
    expect(again).toEqual({ delivery_id: expect.stringMatching(/^whd_/), redelivery_of: first });
    await h.settled(again.delivery_id);
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]!.body).toBe(r.requests[0]!.body);
    expect(r.requests[1]!.headers["x-service-delivery"]).toBe(again.delivery_id);
    const unknown = await auth.webhooks.redeliver(endpoint.id, "whd_unknown").catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ModelRunError);
    expect((unknown as ModelRunError).status).toBe(404);
  });

  it("when Redis is down as a delivery is recorded, then the sweeper sends it later", async () => {
    const { client: auth, liveKey } = await service.account(1000);
    const r = await receiver();
    const endpoint = await h.register(auth, r.url());
    // A second API whose Redis is away: the delivery is recorded, its job cannot be added.
    const down = await service.startApi({ REDIS_URL: DEAD_REDIS_URL });
    const through = new ModelRunClient({ apiKey: liveKey, baseUrl: down.base, maxRetries: 0 });
    const { delivery_id } = await through.webhooks.test(endpoint.id);
    expect(down.app.lines.some((l) => String(l.message).startsWith("enqueue of deliveries failed"))).toBe(
      true,
    );
    expect((await h.settled(delivery_id)).status).toBe("succeeded");
    expect(r.requests).toHaveLength(1);
  });
});

describe("webhook addresses checked at connection time", () => {
  it("when the worker does not allow private addresses, then a delivery to 127.0.0.1 is refused and nothing reaches it", async () => {
    // The API lets the test register 127.0.0.1; the worker, as in production, does not send there.
    const service = await startService();
    const r = await startHttpsReceiver();
    try {
      await service.startApi();
      await service.startWorker({ WEBHOOK_ALLOW_PRIVATE_URLS: "false", WEBHOOK_BACKOFF_BASE_MS: "5" });
      const { client: auth } = await service.account(1000);
      const h = helpers(service);
      const byIp = await h.register(auth, r.url());
      const byName = await h.register(auth, r.url().replace("127.0.0.1", "localhost"));
      const [a, b] = await Promise.all([
        h.settled(await h.sendTest(auth, byIp.id)),
        h.settled(await h.sendTest(auth, byName.id)),
      ]);
      for (const d of [a, b]) {
        expect(d.status).toBe("failed");
        expect(d.attempts.map((x) => x.errorClass)).toEqual(Array(4).fill("refused_address"));
      }
      expect(r.requests).toHaveLength(0);
    } finally {
      await r.close();
      await service.stop();
    }
  });
});
