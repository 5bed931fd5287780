import request from "supertest";
import { hashApiKey } from "@svc/core";
import { revokeApiKey, updateAccountKey } from "@svc/db";
import { createAccountWithKeys, seedTestModels, waitFor } from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";

describe("authentication", () => {
  let api: ApiHarness;
  let keys: Awaited<ReturnType<typeof createAccountWithKeys>>;

  beforeAll(async () => {
    api = await startApi();
    await seedTestModels(api.database.db);
    keys = await createAccountWithKeys(api.database.db);
  });
  afterAll(() => api.close());

  async function expect401(headers: Record<string, string>) {
    const res = await request(api.app).get("/api/v1/models").set(headers).expect(401);
    expect(res.body.error).toMatchObject({
      code: "UNAUTHORIZED",
      message: expect.any(String),
      request_id: expect.any(String),
    });
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    return res;
  }

  it("when there is no Authorization header, then it is a 401 with WWW-Authenticate", async () => {
    const res = await expect401({});
    expect(res.body.error.message).toMatch(/Missing/);
  });

  it("when the scheme is not Bearer, then it is a 401", async () => {
    await expect401({ Authorization: `Basic ${Buffer.from(`${keys.liveKey}:`).toString("base64")}` });
    await expect401({ Authorization: keys.liveKey });
  });

  it.each([
    ["an empty bearer", "Bearer "],
    ["a key of the wrong shape", "Bearer svc_live_short"],
    ["an unknown prefix", `Bearer sk_live_${"a".repeat(43)}`],
    ["two tokens", "Bearer a b"],
  ])("when the header carries %s, then it is a 401", async (_what, header) => {
    await expect401({ Authorization: header });
  });

  it("when the key is well formed but unknown, then it is a 401", async () => {
    await expect401({ Authorization: `Bearer svc_live_${"A".repeat(43)}` });
  });

  it("when a key is valid, then live and test keys both read the catalogue and last_used_at is recorded", async () => {
    await request(api.app)
      .get("/api/v1/models")
      .set({ Authorization: `Bearer ${keys.liveKey}` })
      .expect(200);
    await request(api.app)
      .get("/api/v1/models")
      .set({ Authorization: `Bearer ${keys.testKey}` })
      .expect(200);
    const used = await waitFor(
      async () =>
        (await api.database.db.apiKey.findUniqueOrThrow({ where: { id: keys.liveKeyId } })).lastUsedAt,
      { what: "the key's last use recorded", timeoutMs: 5_000, intervalMs: 20 },
    );
    expect(used).toBeInstanceOf(Date);
  });

  it("when a key is revoked, then it stops working and the account's other keys keep working", async () => {
    const { account, ...own } = await createAccountWithKeys(api.database.db);
    await request(api.app)
      .get("/api/v1/models")
      .set({ Authorization: `Bearer ${own.liveKey}` })
      .expect(200);
    await revokeApiKey(api.database.db, own.liveKeyId);
    const res = await expect401({ Authorization: `Bearer ${own.liveKey}` });
    expect(res.body.error.message).toMatch(/revoked/);
    await request(api.app)
      .get("/api/v1/models")
      .set({ Authorization: `Bearer ${own.testKey}` })
      .expect(200);
    expect(account.id).toMatch(/^acct_/);
  });

  it("when a key's expiry has passed, then it is a 401 saying when, like a revoked key, and the account's other keys keep working", async () => {
    const own = await createAccountWithKeys(api.database.db);
    const at = new Date(Date.now() - 1_000);
    await api.database.db.apiKey.update({ where: { id: own.liveKeyId }, data: { expiresAt: at } });
    const res = await expect401({ Authorization: `Bearer ${own.liveKey}` });
    expect(res.body.error.message).toBe(`This API key expired at ${at.toISOString()}.`);
    await request(api.app)
      .get("/api/v1/models")
      .set({ Authorization: `Bearer ${own.testKey}` })
      .expect(200);
    // Not yet expired: served.
    await api.database.db.apiKey.update({
      where: { id: own.liveKeyId },
      data: { expiresAt: new Date(Date.now() + 60_000) },
    });
    await request(api.app)
      .get("/api/v1/models")
      .set({ Authorization: `Bearer ${own.liveKey}` })
      .expect(200);
  });

  it("when a key is limited to some models, then it runs those and every other model is a 403 MODEL_NOT_ALLOWED that creates nothing", async () => {
    const own = await createAccountWithKeys(api.database.db);
    await updateAccountKey(
      api.database.db,
      own.account.id,
      own.liveKeyId,
      { allowedModels: ["acme/echo"] },
      100,
    );
    const run = (model: string) =>
      request(api.app)
        .post(`/api/v1/models/${model}/run`)
        .set({ Authorization: `Bearer ${own.liveKey}` })
        .send({ input: { prompt: "limited" } });
    await run("acme/echo").expect(201);
    const refused = await run("acme/pixel-hq").expect(403);
    expect(refused.body.error).toMatchObject({
      code: "MODEL_NOT_ALLOWED",
      message: "This API key may run only acme/echo; acme/pixel-hq is not among them.",
    });
    expect(await api.database.db.run.count({ where: { accountId: own.account.id } })).toBe(1);
    // The account's other key is not limited.
    await request(api.app)
      .post("/api/v1/models/acme/pixel-hq/run")
      .set({ Authorization: `Bearer ${own.testKey}` })
      .send({ input: { prompt: "free" } })
      .expect(201);
  });

  it("when a request is made with a key, then the key never appears in the logs", async () => {
    await request(api.app)
      .get("/api/v1/models?limit=0")
      .set({ Authorization: `Bearer ${keys.liveKey}` })
      .expect(400);
    await expect401({ Authorization: `Bearer ${keys.liveKey}x` });
    const secret = keys.liveKey.slice("svc_live_".length);
    expect(api.logLines.length).toBeGreaterThan(0);
    expect(api.logLines.join("\n")).not.toContain(secret);
  });
});

describe("authentication with the key cache on", () => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi({ AUTH_CACHE_TTL_MS: "60000" });
  });
  afterAll(() => api.close());

  it("when a cached key is used again, then it is answered without touching the keys table", async () => {
    const keys = await createAccountWithKeys(api.database.db);
    const auth = { Authorization: `Bearer ${keys.liveKey}` };
    await request(api.app).get("/api/v1/models").set(auth).expect(200);
    // Deleting the key row proves the second answer came from the cache.
    await api.database.db.run.deleteMany({});
    await api.database.db.apiKey.delete({ where: { id: keys.liveKeyId } });
    await request(api.app).get("/api/v1/models").set(auth).expect(200);
  });
});

describe("authentication of unknown keys", () => {
  let api: ApiHarness;

  beforeAll(async () => {
    // No cache for valid keys: what is remembered below is the unknown key alone.
    api = await startApi({ AUTH_CACHE_TTL_MS: "0" });
  });
  afterAll(() => api.close());

  it("when an unknown key is tried again, then it is refused from memory without a second lookup", async () => {
    const keys = await createAccountWithKeys(api.database.db);
    const guess = `svc_live_${"G".repeat(43)}`;
    const auth = { Authorization: `Bearer ${guess}` };
    await request(api.app).get("/api/v1/models").set(auth).expect(401);
    // Were the key looked up again, it would now be found: the row takes the guessed key's hash.
    await api.database.db.apiKey.update({ where: { id: keys.liveKeyId }, data: { hash: hashApiKey(guess) } });
    await request(api.app).get("/api/v1/models").set(auth).expect(401);
  });
});
