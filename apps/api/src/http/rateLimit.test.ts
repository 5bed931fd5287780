import request from "supertest";
import { createAccountWithKeys, seedTestModels } from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";

describe("rate limits per API key", () => {
  let a: ApiHarness;
  let b: ApiHarness;

  beforeAll(async () => {
    const limits = { RATE_LIMIT_PER_MINUTE: "5", RATE_LIMIT_RUNS_PER_MINUTE: "2" };
    a = await startApi(limits);
    await seedTestModels(a.database.db);
    // A second API instance: same database and Redis prefix, its own process state.
    b = await startApi({ ...limits, QUEUE_PREFIX: a.config.QUEUE_PREFIX }, { database: a.database });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it("when the N+1th request of the minute arrives, then it is a 429 with Retry-After and RateLimit headers", async () => {
    const { liveKey } = await createAccountWithKeys(a.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await request(a.app).get("/api/v1/models").set(auth).expect(200);
      expect(res.headers["ratelimit-limit"]).toBe("5");
      remaining.push(res.headers["ratelimit-remaining"]!);
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const limited = await request(a.app).get("/api/v1/models").set(auth).expect(429);
    expect(limited.body.error).toMatchObject({
      code: "RATE_LIMITED",
      message: expect.stringMatching(/5 per minute/),
    });
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers).toMatchObject({ "ratelimit-limit": "5", "ratelimit-remaining": "0" });
    expect(Number(limited.headers["ratelimit-reset"])).toBe(retryAfter);
  });

  it("when two API instances share Redis, then they count the same budget", async () => {
    const { liveKey } = await createAccountWithKeys(a.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    for (let i = 0; i < 3; i++) await request(a.app).get("/api/v1/models").set(auth).expect(200);
    for (let i = 0; i < 2; i++) await request(b.app).get("/api/v1/models").set(auth).expect(200);
    await request(b.app).get("/api/v1/models").set(auth).expect(429);
    await request(a.app).get("/api/v1/models").set(auth).expect(429);
  });

  it("when run creations exceed their own budget, then the next creation is a 429 while reads still pass", async () => {
    const { liveKey } = await createAccountWithKeys(a.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const create = () =>
      request(a.app)
        .post("/api/v1/models/test/instant/run")
        .set(auth)
        .send({ input: { prompt: "p" } });
    await create().expect(201);
    await create().expect(201);
    const limited = await create().expect(429);
    expect(limited.body.error.message).toMatch(/run creations/);
    expect(limited.headers["ratelimit-limit"]).toBe("2");
    await request(a.app).get("/api/v1/models").set(auth).expect(200);
  });

  it("when one key is limited, then another key of the same account is not", async () => {
    const keys = await createAccountWithKeys(a.database.db);
    for (let i = 0; i < 5; i++)
      await request(a.app)
        .get("/api/v1/models")
        .set({ Authorization: `Bearer ${keys.liveKey}` });
    await request(a.app)
      .get("/api/v1/models")
      .set({ Authorization: `Bearer ${keys.liveKey}` })
      .expect(429);
    await request(a.app)
      .get("/api/v1/models")
      .set({ Authorization: `Bearer ${keys.testKey}` })
      .expect(200);
  });

  it("when run creations are spelled in another case or with a trailing slash, then they count against the same budget", async () => {
    const { liveKey } = await createAccountWithKeys(a.database.db);
    const auth = { Authorization: `Bearer ${liveKey}` };
    const create = (path: string) =>
      request(a.app)
        .post(path)
        .set(auth)
        .send({ input: { prompt: "p" } });
    await create("/api/v1/MODELS/test/instant/RUN").expect(201);
    await create("/api/v1/models/test/instant/run/").expect(201);
    const limited = await create("/API/V1/Models/test/instant/Run/").expect(429);
    expect(limited.body.error.message).toMatch(/run creations/);
  });

  it("when an address keeps failing to authenticate, then past AUTH_FAILURES_PER_MINUTE its failures are 429, yet a valid key from it, even unseen, is served", async () => {
    const limited = await startApi(
      { AUTH_FAILURES_PER_MINUTE: "3", QUEUE_PREFIX: `${a.config.QUEUE_PREFIX}af` },
      { database: a.database },
    );
    try {
      const { liveKey } = await createAccountWithKeys(a.database.db);
      const guess = (i: number) => ({ Authorization: `Bearer svc_live_${String(i).padStart(43, "x")}` });
      for (let i = 0; i < 3; i++) await request(limited.app).get("/api/v1/models").set(guess(i)).expect(401);
      for (let i = 3; i < 30; i++) {
        const refused = await request(limited.app).get("/api/v1/models").set(guess(i)).expect(429);
        expect(refused.body.error).toMatchObject({
          code: "RATE_LIMITED",
          message: expect.stringMatching(/failed authentications/),
        });
        expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      }
      // A key this replica has not seen before, from the same address: others' failures never refuse it.
      await request(limited.app)
        .get("/api/v1/models")
        .set({ Authorization: `Bearer ${liveKey}` })
        .expect(200);
    } finally {
      await limited.close();
    }
  });

  it("when a client behind the proxy rotates X-Forwarded-For, then with TRUST_PROXY=1 its failures all count against the address the proxy saw", async () => {
    const proxied = await startApi(
      { AUTH_FAILURES_PER_MINUTE: "3", TRUST_PROXY: "1", QUEUE_PREFIX: `${a.config.QUEUE_PREFIX}xff` },
      { database: a.database },
    );
    try {
      // What one load balancer forwards: the client's own header, then the address it saw.
      const attempt = (i: number) =>
        request(proxied.app)
          .get("/api/v1/models")
          .set({
            Authorization: `Bearer svc_live_${String(i).padStart(43, "y")}`,
            "X-Forwarded-For": `10.9.${i}.1, 203.0.113.50`,
          });
      for (let i = 0; i < 3; i++) await attempt(i).expect(401);
      await attempt(3).expect(429);
      // Another client behind the same proxy has its own budget.
      await request(proxied.app)
        .get("/api/v1/models")
        .set({ Authorization: `Bearer svc_live_${"z".repeat(43)}`, "X-Forwarded-For": "203.0.113.51" })
        .expect(401);
    } finally {
      await proxied.close();
    }
  });
});
