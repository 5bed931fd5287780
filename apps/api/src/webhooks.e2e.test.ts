import { verify as verifyServiceSignature } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import request from "supertest";
import {
  createAccountWithKeys,
  DEAD_REDIS_URL,
  startHttpsReceiver,
  testCertificate,
  waitFor,
  type HttpsReceiver,
  type SpawnedApp,
} from "@svc/testkit";
import { setupE2E, startWorker, stopWorker, type E2E } from "./test/e2e.js";
import { startApi } from "./test/harness.js";

type Auth = Record<string, string>;

async function webhookWorld(workerEnv: Record<string, string> = {}) {
  const { caFile } = await testCertificate();
  const ctx = await setupE2E({
    WEBHOOK_CA_FILE: caFile,
    WEBHOOK_BACKOFF_BASE_MS: "100",
    WEBHOOK_TIMEOUT_MS: "400",
    CONTENT_POLICY_BLOCKLIST: "forbidden",
    ...workerEnv,
  });
  const worker = await startWorker(ctx.workerEnvFor());
  return { ctx, worker };
}

function helpers(ctx: E2E) {
  const app = () => request(ctx.api.app);
  return {
    register: async (auth: Auth, url: string, events?: string[]) =>
      (
        await app()
          .post("/api/v1/webhooks")
          .set(auth)
          .send(events ? { url, events } : { url })
          .expect(201)
      ).body.data as {
        id: string;
        signing_secret: string;
      },
    run: async (auth: Auth, model: string, input: object, webhookUrl?: string) =>
      (
        await app()
          .post(`/api/v1/models/${model}/run`)
          .set(auth)
          .send({ input, ...(webhookUrl && { webhook_url: webhookUrl }) })
          .expect(201)
      ).body.data.run_id as string,
    sendTest: async (auth: Auth, endpointId: string) =>
      (await app().post(`/api/v1/webhooks/${endpointId}/test`).set(auth).expect(202)).body.data
        .delivery_id as string,
    deliveries: async (auth: Auth, endpointId: string) =>
      (await app().get(`/api/v1/webhooks/${endpointId}/deliveries?limit=100`).set(auth).expect(200)).body.data
        .deliveries,
    endpoint: async (auth: Auth, endpointId: string) =>
      (await app().get(`/api/v1/webhooks/${endpointId}`).set(auth).expect(200)).body.data,
    /** Waits until the delivery has a final status and returns it. */
    settled: (deliveryId: string) =>
      waitFor(
        async () => {
          const d = await ctx.api.database.db.delivery.findUnique({
            where: { id: deliveryId },
            include: { attempts: { orderBy: { number: "asc" } } },
          });
          return d && d.status !== "pending" ? d : null;
        },
        { what: `delivery ${deliveryId} to finish` },
      ),
    runDeliveriesFinal: (runId: string) =>
      waitFor(async () => {
        const ds = await ctx.api.database.db.delivery.findMany({ where: { runId } });
        return ds.length > 0 && ds.every((d) => d.status !== "pending") ? ds : null;
      }),
  };
}

describe("webhook deliveries end to end", () => {
  let ctx: E2E;
  let worker: SpawnedApp;
  let h: ReturnType<typeof helpers>;
  const receivers: HttpsReceiver[] = [];
  const receiver = async (...args: Parameters<typeof startHttpsReceiver>) => {
    const r = await startHttpsReceiver(...args);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    ({ ctx, worker } = await webhookWorld());
    h = helpers(ctx);
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stopWorker(worker);
    await ctx.api.close();
  });

  it("when a run completes, then its webhook_url and a registered endpoint get the spec's payloads, signed verifiably", async () => {
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const r = await receiver();
    const endpoint = await h.register(auth, r.url("/endpoint"));
    const defaultSecret = (
      await request(ctx.api.app).get("/api/v1/webhooks/default/secret").set(auth).expect(200)
    ).body.data.signing_secret;
    const runId = await h.run(auth, "test/instant", { prompt: "signed" }, r.url("/per-run"));
    await r.waitForRequests(2);
    const perRun = r.requests.find((q) => q.path === "/per-run")!;
    const toEndpoint = r.requests.find((q) => q.path === "/endpoint")!;
    const run = (await request(ctx.api.app).get(`/api/v1/runs/${runId}`).set(auth).expect(200)).body.data;

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

  it("when the receiver fails twice and then answers 200, then there are exactly 3 attempts with growing gaps and one success", async () => {
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const r = await receiver((_req, i) => ({ status: i < 2 ? 500 : 200 }));
    const endpoint = await h.register(auth, r.url());
    const deliveryId = await h.sendTest(auth, endpoint.id);
    const done = await h.settled(deliveryId);
    expect(done.status).toBe("succeeded");
    expect(r.requests).toHaveLength(3);
    const [a, b, c] = r.requests.map((q) => q.at) as [number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(90);
    expect(c - b).toBeGreaterThan(b - a);
    expect(new Set(r.requests.map((q) => q.headers["x-service-delivery"]))).toEqual(new Set([deliveryId]));
    const [log] = await h.deliveries(auth, endpoint.id);
    expect(log).toMatchObject({ id: deliveryId, event: "webhook.test", status: "succeeded" });
    expect(
      log.attempts.map((x: { status_code: number; success: boolean }) => [x.status_code, x.success]),
    ).toEqual([
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
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const r = await receiver(() => ({ status: 503 }));
    const endpoint = await h.register(auth, r.url());
    const done = await h.settled(await h.sendTest(auth, endpoint.id));
    expect(done.status).toBe("failed");
    expect(done.attempts).toHaveLength(4);
    expect(r.requests).toHaveLength(4);
    expect(await h.endpoint(auth, endpoint.id)).toMatchObject({ status: "active", consecutive_failures: 1 });
  });

  it("when a receiver redirects or answers too slowly, then the attempts fail as redirect and timeout", async () => {
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
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
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    let failing = true;
    const r = await receiver(() => ({ status: failing ? 500 : 200 }));
    const endpoint = await h.register(auth, r.url());
    const failMany = async (n: number) => {
      const ids = await Promise.all(Array.from({ length: n }, () => h.sendTest(auth, endpoint.id)));
      await Promise.all(ids.map(h.settled));
    };

    await failMany(9);
    expect(await h.endpoint(auth, endpoint.id)).toMatchObject({ status: "active", consecutive_failures: 9 });
    failing = false;
    expect((await h.settled(await h.sendTest(auth, endpoint.id))).status).toBe("succeeded");
    expect(await h.endpoint(auth, endpoint.id)).toMatchObject({ status: "active", consecutive_failures: 0 });
    failing = true;
    await failMany(10);
    const disabled = await h.endpoint(auth, endpoint.id);
    expect(disabled).toMatchObject({
      status: "disabled",
      consecutive_failures: 10,
      disabled_at: expect.any(String),
    });

    // A disabled endpoint gets nothing: no delivery for a finished run, a test delivery is dropped.
    const before = r.requests.length;
    const runId = await h.run(auth, "test/instant", { prompt: "nobody listens" });
    await waitFor(
      async () =>
        (await ctx.api.database.db.run.findUnique({ where: { id: runId } }))?.status === "COMPLETED",
    );
    expect(await ctx.api.database.db.delivery.count({ where: { runId } })).toBe(0);
    const dropped = await h.settled(await h.sendTest(auth, endpoint.id));
    expect(dropped).toMatchObject({ status: "failed", attempts: [] });
    expect(r.requests.length).toBe(before);

    failing = false;
    const enabled = (
      await request(ctx.api.app).post(`/api/v1/webhooks/${endpoint.id}/enable`).set(auth).expect(200)
    ).body.data;
    expect(enabled).toMatchObject({ status: "active", consecutive_failures: 0, disabled_at: null });
    expect((await h.settled(await h.sendTest(auth, endpoint.id))).status).toBe("succeeded");
  });

  it("when runs finish, then only matching subscriptions of the same account and mode receive, and deleted endpoints nothing", async () => {
    const owner = await createAccountWithKeys(ctx.api.database.db);
    const stranger = await createAccountWithKeys(ctx.api.database.db);
    const live = { Authorization: `Bearer ${owner.liveKey}` };
    const r = await receiver();
    const all = await h.register(live, r.url("/all"));
    const failedOnly = await h.register(live, r.url("/failed-only"), ["run.failed"]);
    const canceledOnly = await h.register(live, r.url("/canceled-only"), ["run.canceled"]);
    const deleted = await h.register(live, r.url("/deleted"));
    await request(ctx.api.app).delete(`/api/v1/webhooks/${deleted.id}`).set(live).expect(200);
    await h.register({ Authorization: `Bearer ${owner.testKey}` }, r.url("/test-mode"));
    await h.register({ Authorization: `Bearer ${stranger.liveKey}` }, r.url("/stranger"));

    const completed = await h.run(live, "test/instant", { prompt: "fine" });
    const failed = await h.run(live, "test/instant", { prompt: "something forbidden" }, r.url("/per-run"));
    await Promise.all([h.runDeliveriesFinal(completed), h.runDeliveriesFinal(failed)]);
    const slow = await h.run(live, "test/slow", { prompt: "stop me" });
    await waitFor(
      async () => (await ctx.api.database.db.run.findUnique({ where: { id: slow } }))?.status === "EXECUTING",
    );
    await request(ctx.api.app).post(`/api/v1/runs/${slow}/cancel`).set(live).expect(200);
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
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const r = await receiver();
    const endpoint = await h.register(auth, r.url());
    const first = await h.sendTest(auth, endpoint.id);
    await h.settled(first);
    const res = await request(ctx.api.app)
      .post(`/api/v1/webhooks/${endpoint.id}/deliveries/${first}/redeliver`)
      .set(auth)
      .expect(202);
    expect(res.body.data).toEqual({ delivery_id: expect.stringMatching(/^whd_/), redelivery_of: first });
    await h.settled(res.body.data.delivery_id);
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]!.body).toBe(r.requests[0]!.body);
    expect(r.requests[1]!.headers["x-service-delivery"]).toBe(res.body.data.delivery_id);
    await request(ctx.api.app)
      .post(`/api/v1/webhooks/${endpoint.id}/deliveries/whd_unknown/redeliver`)
      .set(auth)
      .expect(404);
  });

  it("when Redis is down as a delivery is recorded, then the sweeper sends it later", async () => {
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const r = await receiver();
    const endpoint = await h.register(auth, r.url());
    const down = await startApi({ REDIS_URL: DEAD_REDIS_URL }, { database: ctx.api.database });
    try {
      const res = await request(down.app).post(`/api/v1/webhooks/${endpoint.id}/test`).set(auth).expect(202);
      expect(down.logLines.some((l) => l.includes("enqueue of deliveries failed"))).toBe(true);
      expect((await h.settled(res.body.data.delivery_id)).status).toBe("succeeded");
      expect(r.requests).toHaveLength(1);
    } finally {
      await down.close();
    }
  });
});

describe("webhook addresses checked at connection time", () => {
  it("when the worker does not allow private addresses, then a delivery to 127.0.0.1 is refused and nothing reaches it", async () => {
    const { ctx, worker } = await webhookWorld({
      WEBHOOK_ALLOW_PRIVATE_URLS: "false",
      WEBHOOK_BACKOFF_BASE_MS: "5",
    });
    const r = await startHttpsReceiver();
    try {
      const { liveKey } = await createAccountWithKeys(ctx.api.database.db);
      const auth = { Authorization: `Bearer ${liveKey}` };
      const h = helpers(ctx);
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
      await stopWorker(worker);
      await ctx.api.close();
    }
  });
});
