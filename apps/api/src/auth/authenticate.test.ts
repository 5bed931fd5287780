import request from "supertest";
import { hashApiKey } from "@svc/core";
import { revokeApiKey } from "@svc/db";
import { createAccountWithKeys } from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";

describe("authentication", () => {
  let api: ApiHarness;
  let keys: Awaited<ReturnType<typeof createAccountWithKeys>>;

  beforeAll(async () => {
    api = await startApi();
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
    const deadline = Date.now() + 5000;
    let used = null;
    while (!used && Date.now() < deadline) {
      used = (await api.database.db.apiKey.findUniqueOrThrow({ where: { id: keys.liveKeyId } })).lastUsedAt;
      if (!used) await new Promise((r) => setTimeout(r, 20));
    }
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
