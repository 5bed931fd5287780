import request from "supertest";
import { createAccountWithKeys, seedTestModels } from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";

describe("webhook endpoints API", () => {
  let api: ApiHarness;
  let live: Record<string, string>;
  let test: Record<string, string>;

  beforeAll(async () => {
    api = await startApi();
    const keys = await createAccountWithKeys(api.database.db);
    live = { Authorization: `Bearer ${keys.liveKey}` };
    test = { Authorization: `Bearer ${keys.testKey}` };
  });
  afterAll(() => api.close());

  const register = (auth: Record<string, string>, body: object) =>
    request(api.app).post("/api/v1/webhooks").set(auth).send(body);

  it("when an endpoint is registered without events, then 201 returns the secret once with the message and the default events", async () => {
    const res = await register(live, { url: "https://example.com/hooks" }).expect(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(/^wh_[0-9A-Za-z]{22}$/),
        url: "https://example.com/hooks",
        events: ["run.completed", "run.failed"],
        signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      },
      message: expect.stringMatching(/returned only once/),
    });
    const stored = await api.database.db.webhookEndpoint.findUniqueOrThrow({
      where: { id: res.body.data.id },
    });
    expect(stored.secretEnc).not.toContain(res.body.data.signing_secret.slice(6));
  });

  it("when events are given, then exactly those are kept, including the opt-in run.canceled", async () => {
    const res = await register(live, { url: "https://example.com/a", events: ["run.canceled"] }).expect(201);
    expect(res.body.data.events).toEqual(["run.canceled"]);
  });

  it.each([
    [{ url: "http://example.com/hook" }, "url"],
    [{ url: "not a url" }, "url"],
    [{}, "url"],
    [{ url: "https://example.com", events: ["run.queued"] }, "events.0"],
    [{ url: "https://example.com", events: [] }, "events"],
    [{ url: "https://example.com", events: ["run.failed", "run.failed"] }, "events"],
    [{ url: "https://example.com", secret: "mine" }, ""],
  ])("when the body is %p, then it is a 400 naming %s and nothing is created", async (body, path) => {
    const before = await api.database.db.webhookEndpoint.count();
    const res = await register(live, body).expect(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    if (path) expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await api.database.db.webhookEndpoint.count()).toBe(before);
  });

  it("when listing, then every endpoint of the caller's mode is shown with status and failures, never a secret", async () => {
    const created = (await register(live, { url: "https://example.com/list" }).expect(201)).body.data;
    await register(test, { url: "https://example.com/test-mode" }).expect(201);
    const res = await request(api.app).get("/api/v1/webhooks").set(live).expect(200);
    expect(res.body.data.total).toBe(res.body.data.webhooks.length);
    expect(res.body.data.webhooks.find((w: { id: string }) => w.id === created.id)).toEqual({
      id: created.id,
      url: "https://example.com/list",
      events: ["run.completed", "run.failed"],
      status: "active",
      consecutive_failures: 0,
      created_at: expect.any(String),
      disabled_at: null,
    });
    expect(JSON.stringify(res.body)).not.toMatch(/whsec_|secret/);
    expect(res.body.data.webhooks.map((w: { url: string }) => w.url)).not.toContain(
      "https://example.com/test-mode",
    );
    const one = await request(api.app).get(`/api/v1/webhooks/${created.id}`).set(live).expect(200);
    expect(JSON.stringify(one.body)).not.toMatch(/whsec_/);
  });

  it("when an endpoint belongs to another account or mode, then every operation on it is a 404 WEBHOOK_NOT_FOUND", async () => {
    const { id } = (await register(live, { url: "https://example.com/private" }).expect(201)).body.data;
    const other = await createAccountWithKeys(api.database.db);
    for (const auth of [test, { Authorization: `Bearer ${other.liveKey}` }]) {
      for (const [method, path] of [
        ["get", `/api/v1/webhooks/${id}`],
        ["delete", `/api/v1/webhooks/${id}`],
        ["post", `/api/v1/webhooks/${id}/enable`],
        ["post", `/api/v1/webhooks/${id}/rotate-secret`],
        ["get", `/api/v1/webhooks/${id}/deliveries`],
        ["post", `/api/v1/webhooks/${id}/test`],
      ] as const) {
        const res = await request(api.app)[method](path).set(auth).expect(404);
        expect(res.body.error.code).toBe("WEBHOOK_NOT_FOUND");
      }
    }
    await request(api.app).get(`/api/v1/webhooks/${id}`).set(live).expect(200);
  });

  it("when an endpoint is deleted, then the answer says so and it is gone", async () => {
    const { id } = (await register(live, { url: "https://example.com/gone" }).expect(201)).body.data;
    const res = await request(api.app).delete(`/api/v1/webhooks/${id}`).set(live).expect(200);
    expect(res.body.data).toEqual({ id, deleted: true });
    await request(api.app).delete(`/api/v1/webhooks/${id}`).set(live).expect(404);
  });

  it("when a disabled endpoint is enabled, then it is active with its failure count reset", async () => {
    const { id } = (await register(live, { url: "https://example.com/off" }).expect(201)).body.data;
    await api.database.db.webhookEndpoint.update({
      where: { id },
      data: { status: "disabled", consecutiveFailures: 10, disabledAt: new Date() },
    });
    const res = await request(api.app).post(`/api/v1/webhooks/${id}/enable`).set(live).expect(200);
    expect(res.body.data).toMatchObject({ id, status: "active", consecutive_failures: 0, disabled_at: null });
  });

  it("when the secret is rotated, then a new secret is shown once and the old one is kept for 24 h", async () => {
    const created = (await register(live, { url: "https://example.com/rotate" }).expect(201)).body.data;
    const res = await request(api.app)
      .post(`/api/v1/webhooks/${created.id}/rotate-secret`)
      .set(live)
      .expect(200);
    expect(res.body.data.signing_secret).toMatch(/^whsec_/);
    expect(res.body.data.signing_secret).not.toBe(created.signing_secret);
    const expires = new Date(res.body.data.previous_secret_expires_at).getTime();
    expect(expires - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const stored = await api.database.db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    expect(stored.previousSecretEnc).not.toBeNull();
  });

  it("when the default secret is read twice, then it is the same; the other mode has its own", async () => {
    const a = await request(api.app).get("/api/v1/webhooks/default/secret").set(live).expect(200);
    const b = await request(api.app).get("/api/v1/webhooks/default/secret").set(live).expect(200);
    const t = await request(api.app).get("/api/v1/webhooks/default/secret").set(test).expect(200);
    expect(a.body.data.signing_secret).toMatch(/^whsec_/);
    expect(b.body.data.signing_secret).toBe(a.body.data.signing_secret);
    expect(t.body.data.signing_secret).not.toBe(a.body.data.signing_secret);
  });

  it("when the deliveries of an endpoint with none are listed, then the page is empty", async () => {
    const { id } = (await register(live, { url: "https://example.com/quiet" }).expect(201)).body.data;
    const res = await request(api.app).get(`/api/v1/webhooks/${id}/deliveries`).set(live).expect(200);
    expect(res.body.data).toEqual({ deliveries: [], next_cursor: null });
  });
});

describe("webhook URLs that reach internal addresses", () => {
  let api: ApiHarness;
  let live: Record<string, string>;

  beforeAll(async () => {
    api = await startApi({ WEBHOOK_ALLOW_PRIVATE_URLS: "false" });
    await seedTestModels(api.database.db);
    live = { Authorization: `Bearer ${(await createAccountWithKeys(api.database.db)).liveKey}` };
  });
  afterAll(() => api.close());

  it.each([
    "https://127.0.0.1/hook",
    "https://localhost/hook",
    "https://[::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    // IPv4-compatible, SIIT, NAT64, 6to4 and Teredo forms of loopback and private addresses.
    "https://[::127.0.0.1]/hook",
    "https://[::7f00:1]/hook",
    "https://[::ffff:0:10.0.0.1]/hook",
    "https://[64:ff9b::a9fe:a9fe]/hook",
    "https://[64:ff9b:1::a00:1]/hook",
    "https://[2002:7f00:1::1]/hook",
    "https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/hook",
    "https://10.0.0.8/hook",
    "https://192.168.1.1/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://100.64.0.1/hook",
    "https://0.0.0.0/hook",
  ])("when %s is registered, then it is a 400 and nothing is created", async (url) => {
    const res = await request(api.app).post("/api/v1/webhooks").set(live).send({ url }).expect(400);
    expect(res.body.error.details).toEqual([{ path: "url", message: expect.stringMatching(/internal/) }]);
    expect(await api.database.db.webhookEndpoint.count()).toBe(0);
  });

  it("when a run's webhook_url is internal, then run creation is a 400 and no run exists", async () => {
    const res = await request(api.app)
      .post("/api/v1/models/test/instant/run")
      .set(live)
      .send({ input: { prompt: "p" }, webhook_url: "https://127.0.0.1:9/hook" })
      .expect(400);
    expect(res.body.error.details[0].path).toBe("webhook_url");
    expect(await api.database.db.run.count()).toBe(0);
  });

  it("when the host does not resolve, then the answer is the one an internal host gets (no map of internal names)", async () => {
    const answer = async (url: string) =>
      (await request(api.app).post("/api/v1/webhooks").set(live).send({ url }).expect(400)).body.error;
    const unknown = await answer("https://no-such-host.invalid/hook");
    const internal = await answer("https://localhost/hook");
    expect(unknown.details).toEqual(internal.details);
    expect(unknown.message).toBe(internal.message);
  });
});

describe("webhook endpoints per account", () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ WEBHOOK_ENDPOINTS_MAX: "3" });
  });
  afterAll(() => api.close());

  it("when concurrent creations exceed WEBHOOK_ENDPOINTS_MAX, then exactly the cap is created, the rest are 400, and the other mode has its own room", async () => {
    const keys = await createAccountWithKeys(api.database.db);
    const create = (key: string) =>
      request(api.app)
        .post("/api/v1/webhooks")
        .set("Authorization", `Bearer ${key}`)
        .send({ url: "https://example.com/same-url" });
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(keys.liveKey)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    expect(refused[0]!.body.error.details[0].message).toMatch(/most endpoints allowed in live mode \(3\)/);
    expect(
      await api.database.db.webhookEndpoint.count({ where: { accountId: keys.account.id, mode: "live" } }),
    ).toBe(3);
    await create(keys.testKey).expect(201);
  });
});
