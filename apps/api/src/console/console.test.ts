import request from "supertest";
import { createAccountWithKeys, seedTestModels } from "@svc/testkit";
import { addUser } from "@svc/use-cases";
import { startApi, type ApiHarness } from "../test/harness.js";

const PASSWORD = "a long enough password";

describe("web console API", () => {
  let api: ApiHarness;
  let ours: Awaited<ReturnType<typeof createAccountWithKeys>>;
  let theirs: Awaited<ReturnType<typeof createAccountWithKeys>>;

  beforeAll(async () => {
    api = await startApi({
      PUBLIC_BASE_URL: "https://console.example.com",
      SIGN_IN_ATTEMPTS_PER_EMAIL: "5",
      SIGN_IN_ATTEMPTS_PER_ADDRESS: "1000",
      API_KEYS_PER_MODE_MAX: "3",
      // supertest's requests come from loopback: X-Forwarded-For says which client they stand for.
      TRUST_PROXY: "loopback",
    });
    await seedTestModels(api.database.db);
    ours = await createAccountWithKeys(api.database.db, 1000, "ours");
    theirs = await createAccountWithKeys(api.database.db, 1000, "theirs");
    for (const [email, account, role] of [
      ["owner@example.com", ours.account.id, "owner"],
      ["member@example.com", ours.account.id, "member"],
      ["other@example.com", theirs.account.id, "owner"],
    ] as const) {
      expect(
        (await addUser(api.database.db, { accountId: account, email, password: PASSWORD, role })).kind,
      ).toBe("created");
    }
  });
  afterAll(() => api.close());

  /** A new account with `tokens` and its owner signed in: the console headers of the session. */
  async function ownerOfNewAccount(name: string, tokens: number) {
    const made = await createAccountWithKeys(api.database.db, tokens, name);
    const email = `${name}@example.com`;
    await addUser(api.database.db, { accountId: made.account.id, email, password: PASSWORD, role: "owner" });
    const { cookie, csrf } = await signIn(email);
    return { ...made, auth: { Cookie: cookie, "X-CSRF-Token": csrf } };
  }

  /** Each body is a 400 naming its field. */
  async function expectKeyCreationRefused(auth: Record<string, string>, cases: [object, string][]) {
    for (const [body, path] of cases) {
      const res = await request(api.app)
        .post("/console/api/keys")
        .set(auth)
        .send({ name: "bad", mode: "live", ...body })
        .expect(400);
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
  }

  async function signIn(email: string, password = PASSWORD) {
    const res = await request(api.app).post("/console/api/session").send({ email, password });
    const cookie = res.headers["set-cookie"] as unknown as string[] | undefined;
    return { res, cookie: cookie?.[0]?.split(";")[0] ?? "", csrf: res.body.data?.csrf_token as string };
  }

  it("when a person signs in, then the session cookie is HttpOnly, SameSite=Lax, Secure on https, scoped to /console", async () => {
    const { res, cookie } = await signIn("OWNER@example.com");
    expect(res.status).toBe(201);
    const header = (res.headers["set-cookie"] as unknown as string[])[0]!;
    expect(header).toMatch(/^svc_session=[A-Za-z0-9_-]{43};/);
    expect(header).toMatch(/; HttpOnly/);
    expect(header).toMatch(/; SameSite=Lax/);
    expect(header).toMatch(/; Secure/);
    expect(header).toMatch(/; Path=\/console/);
    expect(header).toMatch(/; Expires=/);
    const session = await request(api.app).get("/console/api/session").set("Cookie", cookie).expect(200);
    expect(session.body.data).toMatchObject({
      user: { email: "owner@example.com", role: "owner" },
      account: { id: ours.account.id, name: "ours" },
    });
    // Only the token's hash is stored.
    const stored = await api.database.db.consoleSession.findMany();
    expect(stored.some((s) => cookie.includes(s.tokenHash))).toBe(false);
  });

  it("when the password is wrong or the email unknown, then both get the same 401 and no cookie", async () => {
    const wrong = await signIn("owner@example.com", "not the password at all");
    const unknown = await signIn("nobody@example.com");
    for (const { res } of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: "UNAUTHORIZED", message: "Wrong email or password." });
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("when someone guesses one person's password, then the email is not locked: past its budget each address may try once a minute, and the owner gets in from theirs", async () => {
    await addUser(api.database.db, {
      accountId: ours.account.id,
      email: "guessed@example.com",
      password: PASSWORD,
      role: "member",
    });
    const from = (ip: string, password: string) =>
      request(api.app)
        .post("/console/api/session")
        .set("X-Forwarded-For", ip)
        .send({ email: "guessed@example.com", password });
    for (let i = 0; i < 5; i++) expect((await from("203.0.113.9", "wrong password!")).status).toBe(401);
    // Past SIGN_IN_ATTEMPTS_PER_EMAIL (5): one more try from that address this minute, then a wait.
    expect((await from("203.0.113.9", "wrong password!")).status).toBe(401);
    const limited = await from("203.0.113.9", PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The owner, from their own address, signs in at once.
    expect((await from("198.51.100.7", PASSWORD)).status).toBe(201);
  });

  it("when a state-changing request lacks the CSRF token or carries a wrong one, then 403 and nothing changes", async () => {
    const { cookie, csrf } = await signIn("owner@example.com");
    const before = await api.database.db.apiKey.count();
    for (const token of [undefined, "wrong", `${csrf}x`]) {
      const req = request(api.app).post("/console/api/keys").set("Cookie", cookie);
      if (token) req.set("X-CSRF-Token", token);
      const res = await req.send({ name: "sneaky", mode: "live" });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    }
    const signOut = await request(api.app).post("/console/api/session/sign-out").set("Cookie", cookie);
    expect(signOut.status).toBe(403);
    const crossSite = await request(api.app)
      .post("/console/api/keys")
      .set({ Cookie: cookie, "X-CSRF-Token": csrf, Origin: "https://evil.example" })
      .send({ name: "sneaky", mode: "live" });
    expect(crossSite.status).toBe(403);
    expect(await api.database.db.apiKey.count()).toBe(before);
  });

  it("when an owner creates a key, then the full key is in that answer only, works with the API, and stops working once revoked", async () => {
    const { cookie, csrf } = await signIn("owner@example.com");
    const created = await request(api.app)
      .post("/console/api/keys")
      .set({ Cookie: cookie, "X-CSRF-Token": csrf })
      .send({ name: "ci", mode: "test" })
      .expect(201);
    const key = created.body.data.key as string;
    expect(key).toMatch(/^svc_test_/);
    const listed = await request(api.app).get("/console/api/keys").set("Cookie", cookie).expect(200);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(listed.body.data.keys[0]).toMatchObject({ id: created.body.data.id, name: "ci", mode: "test" });
    await request(api.app).get("/api/v1/account").set("Authorization", `Bearer ${key}`).expect(200);
    await request(api.app)
      .post(`/console/api/keys/${created.body.data.id}/revoke`)
      .set({ Cookie: cookie, "X-CSRF-Token": csrf })
      .expect(200);
    await request(api.app).get("/api/v1/account").set("Authorization", `Bearer ${key}`).expect(401);
  });

  it("when an owner gives a key an expiry and models, then they are shown and enforced, can be changed or lifted, and bad values are 400s", async () => {
    const { cookie, csrf } = await signIn("owner@example.com");
    const auth = { Cookie: cookie, "X-CSRF-Token": csrf };
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const before = await api.database.db.apiKey.count();
    await expectKeyCreationRefused(auth, [
      [{ allowed_models: ["nobody/nothing"] }, "allowed_models"],
      [{ expires_at: "2001-01-01T00:00:00Z" }, "expires_at"],
      [{ expires_at: "tomorrow" }, "expires_at"],
      [{ allowed_models: "acme/echo" }, "allowed_models"],
    ]);
    expect(await api.database.db.apiKey.count()).toBe(before);

    const created = await request(api.app)
      .post("/console/api/keys")
      .set(auth)
      .send({ name: "limited", mode: "live", expires_at: expiresAt, allowed_models: ["acme/echo"] })
      .expect(201);
    expect(created.body.data).toMatchObject({ expires_at: expiresAt, allowed_models: ["acme/echo"] });
    const key = created.body.data.key as string;
    const run = (model: string) =>
      request(api.app)
        .post(`/api/v1/models/${model}/run`)
        .set("Authorization", `Bearer ${key}`)
        .send({ input: { prompt: "scoped" } });
    expect((await run("acme/pixel-hq")).body.error.code).toBe("MODEL_NOT_ALLOWED");

    const patch = (id: string, body: unknown, as = auth) =>
      request(api.app)
        .patch(`/console/api/keys/${id}`)
        .set(as)
        .send(body as object);
    const lifted = await patch(created.body.data.id, { allowed_models: null, expires_at: null }).expect(200);
    expect(lifted.body.data).toMatchObject({
      id: created.body.data.id,
      allowed_models: null,
      expires_at: null,
    });
    expect((await run("acme/pixel-hq")).status).toBe(201);
    const listed = await request(api.app).get("/console/api/keys").set("Cookie", cookie).expect(200);
    expect(listed.body.data.keys.find((k: { id: string }) => k.id === created.body.data.id)).toMatchObject({
      allowed_models: null,
      expires_at: null,
    });

    await patch(created.body.data.id, {}).expect(400);
    await patch(theirs.liveKeyId, { allowed_models: ["acme/echo"] }).expect(404);
    const member = await signIn("member@example.com");
    await patch(
      created.body.data.id,
      { expires_at: null },
      { Cookie: member.cookie, "X-CSRF-Token": member.csrf },
    ).expect(403);
    expect(
      (await api.database.db.apiKey.findUniqueOrThrow({ where: { id: theirs.liveKeyId } })).allowedModels,
    ).toEqual([]);
  });

  it("when an owner gives a key a budget and a concurrency limit, then the key's holder sees them, a run past the budget is 402 KEY_BUDGET_EXCEEDED naming it, and bad values are 400s", async () => {
    const { account, auth } = await ownerOfNewAccount("budgeted", 1000);
    await expectKeyCreationRefused(auth, [
      [{ budget: { tokens: 0, period: "day" } }, "budget.tokens"],
      [{ budget: { tokens: 10, period: "week" } }, "budget.period"],
      [{ budget: { tokens: 1.5, period: "day" } }, "budget.tokens"],
      [{ budget: 10 }, "budget"],
      [{ max_concurrent_runs: 0 }, "max_concurrent_runs"],
    ]);
    const created = await request(api.app)
      .post("/console/api/keys")
      .set(auth)
      .send({ name: "capped", mode: "live", budget: { tokens: 1000, period: "day" }, max_concurrent_runs: 2 })
      .expect(201);
    const key = created.body.data.key as string;
    const today = new Date(new Date().toISOString().slice(0, 10) + "T00:00:00.000Z");
    expect(created.body.data).toMatchObject({
      budget: {
        tokens: 1000,
        period: "day",
        used: 0,
        remaining: 1000,
        period_start: today.toISOString(),
        resets_at: new Date(today.getTime() + 86_400_000).toISOString(),
      },
      max_concurrent_runs: 2,
    });
    const run = () =>
      request(api.app)
        .post("/api/v1/models/acme/pixel-hq/run")
        .set("Authorization", `Bearer ${key}`)
        .send({ input: { prompt: "budget" } });
    const first = await run().expect(201);
    const cost = first.body.data.estimated_tokens as number;
    expect(cost).toBeGreaterThan(0);
    // The budget is cut to what is used: the next run does not fit.
    await request(api.app)
      .patch(`/console/api/keys/${created.body.data.id}`)
      .set(auth)
      .send({ budget: { tokens: cost, period: "day" } })
      .expect(200);
    const refused = await run().expect(402);
    expect(refused.body.error.code).toBe("KEY_BUDGET_EXCEEDED");
    expect(refused.body.error.message).toContain(`daily budget of ${cost} tokens`);
    expect(refused.body.error.message).toContain(`${cost} used today (UTC)`);
    expect(await api.database.db.run.count({ where: { accountId: account.id } })).toBe(1);
    const mine = await request(api.app)
      .get("/api/v1/account")
      .set("Authorization", `Bearer ${key}`)
      .expect(200);
    expect(mine.body.data.key).toMatchObject({
      id: created.body.data.id,
      budget: { tokens: cost, used: cost, remaining: 0 },
      max_concurrent_runs: 2,
    });
    expect(mine.body.data.available).toBe(1000 - cost);
    // No budget: it runs again.
    await request(api.app)
      .patch(`/console/api/keys/${created.body.data.id}`)
      .set(auth)
      .send({ budget: null, max_concurrent_runs: null })
      .expect(200);
    await run().expect(201);
  });

  it("when an owner sets the low-balance threshold, then GET /account shows it; a member cannot set it and bad values are 400s", async () => {
    const owner = await signIn("owner@example.com");
    const member = await signIn("member@example.com");
    const set = (body: unknown, who: { cookie: string; csrf: string }) =>
      request(api.app)
        .patch("/console/api/account/alerts")
        .set({ Cookie: who.cookie, "X-CSRF-Token": who.csrf })
        .send(body as object);
    await set({ low_balance_threshold: 100 }, member).expect(403);
    await set({ low_balance_threshold: -1 }, owner).expect(400);
    await set({ low_balance_threshold: "100" }, owner).expect(400);
    await set({}, owner).expect(400);
    expect((await set({ low_balance_threshold: 100 }, owner).expect(200)).body.data).toEqual({
      low_balance_threshold: 100,
    });
    const read = () =>
      request(api.app).get("/api/v1/account").set("Authorization", `Bearer ${ours.liveKey}`).expect(200);
    expect((await read()).body.data.low_balance_threshold).toBe(100);
    // A live figure: a test key sees none.
    const asTest = await request(api.app)
      .get("/api/v1/account")
      .set("Authorization", `Bearer ${ours.testKey}`)
      .expect(200);
    expect(asTest.body.data).toMatchObject({ mode: "test", balance: 0, low_balance_threshold: null });
    await set({ low_balance_threshold: null }, owner).expect(200);
    expect((await read()).body.data.low_balance_threshold).toBeNull();
    const theirsRow = await api.database.db.account.findUniqueOrThrow({ where: { id: theirs.account.id } });
    expect(theirsRow.lowBalanceThreshold).toBeNull();
  });

  it("when the keys are listed, then each shows the tokens its runs were charged today and this month (UTC)", async () => {
    const { db } = api.database;
    const runOf = async (key: string) =>
      (
        await request(api.app)
          .post("/api/v1/models/acme/echo/run")
          .set("Authorization", `Bearer ${key}`)
          .send({ input: { prompt: "spend" } })
          .expect(201)
      ).body.data.run_id as string;
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 3_600_000);
    const charge = async (runId: string, amount: number, createdAt: Date, accountId = ours.account.id) =>
      db.ledgerEntry.create({
        data: {
          id: `led_spend_${runId}`,
          accountId,
          runId,
          kind: "CHARGE",
          amount,
          balanceDelta: -amount,
          reservedDelta: -amount,
          createdAt,
        },
      });
    await charge(await runOf(ours.liveKey), 7, now);
    await charge(await runOf(ours.liveKey), 100, lastMonth);
    await charge(await runOf(theirs.liveKey), 50, now, theirs.account.id);
    const { cookie } = await signIn("owner@example.com");
    const listed = await request(api.app).get("/console/api/keys").set("Cookie", cookie).expect(200);
    const byId = new Map(listed.body.data.keys.map((k: { id: string; spend: unknown }) => [k.id, k.spend]));
    expect(byId.get(ours.liveKeyId)).toEqual({ today: 7, this_month: 7 });
    expect(byId.get(ours.testKeyId)).toEqual({ today: 0, this_month: 0 });
    expect(byId.has(theirs.liveKeyId)).toBe(false);
  });

  it("when an owner mints keys fast, then API_KEYS_PER_MODE_MAX active keys per mode is the most, even for concurrent requests", async () => {
    const { account, auth } = await ownerOfNewAccount("minter", 0);
    const mint = (mode: string) =>
      request(api.app).post("/console/api/keys").set(auth).send({ name: "k", mode });
    // The fixture's test key is one of the 3.
    const answers = await Promise.all(Array.from({ length: 10 }, () => mint("test")));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(2);
    const refused = answers.find((r) => r.status !== 201)!;
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("KEY_LIMIT_REACHED");
    expect(refused.body.error.message).toMatch(/3 active test keys/);
    expect(await api.database.db.apiKey.count({ where: { accountId: account.id, mode: "test" } })).toBe(3);
    await mint("live").expect(201);
  });

  it("when expired keys are given a new expiry, then each counts as a new key against API_KEYS_PER_MODE_MAX, even concurrently", async () => {
    const { account, auth } = await ownerOfNewAccount("reviver", 0);
    const mint = () => request(api.app).post("/console/api/keys").set(auth).send({ name: "k", mode: "test" });
    // The fixture's test key and two more: the cap of 3. Two of them expire.
    const minted = await Promise.all([mint(), mint()]);
    const expiredIds = minted.map((r) => r.body.data.id as string);
    await api.database.db.apiKey.updateMany({
      where: { id: { in: expiredIds } },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    await mint().expect(201);
    await mint().expect(201);
    const active = () =>
      api.database.db.apiKey.count({
        where: {
          accountId: account.id,
          mode: "test",
          revokedAt: null,
          OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }],
        },
      });
    expect(await active()).toBe(3);
    const extend = (id: string, expires_at: string | null) =>
      request(api.app).patch(`/console/api/keys/${id}`).set(auth).send({ expires_at });
    const refused = await extend(expiredIds[0]!, null);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("KEY_LIMIT_REACHED");
    expect((await extend(expiredIds[1]!, new Date(Date.now() + 86_400_000).toISOString())).status).toBe(409);
    expect(await active()).toBe(3);
    // Other limits of an expired key can still change: it stays expired.
    await request(api.app)
      .patch(`/console/api/keys/${expiredIds[0]}`)
      .set(auth)
      .send({ allowed_models: ["acme/echo"] })
      .expect(200);

    // One place freed, two revivals at once: one of them gets it.
    const keys = await request(api.app).get("/console/api/keys").set(auth).expect(200);
    const usable = keys.body.data.keys.find(
      (k: { id: string; mode: string; revoked_at: string | null }) =>
        k.mode === "test" && !expiredIds.includes(k.id) && !k.revoked_at,
    );
    await request(api.app).post(`/console/api/keys/${usable.id}/revoke`).set(auth).expect(200);
    const answers = await Promise.all(expiredIds.map((id) => extend(id, null)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await active()).toBe(3);
  });

  it("when another account's key, run or endpoint id is used, then 404 and nothing changes", async () => {
    const { cookie, csrf } = await signIn("owner@example.com");
    const auth = { Cookie: cookie, "X-CSRF-Token": csrf };
    const endpoint = await request(api.app)
      .post("/api/v1/webhooks")
      .set("Authorization", `Bearer ${theirs.liveKey}`)
      .send({ url: "https://example.com/theirs" })
      .expect(201);
    const endpointPath = `/console/api/live/webhooks/${endpoint.body.data.id}`;
    expect((await request(api.app).get(endpointPath).set(auth)).status).toBe(404);
    expect((await request(api.app).delete(endpointPath).set(auth)).status).toBe(404);
    expect(
      (
        await request(api.app)
          .patch(endpointPath)
          .set(auth)
          .send({ events: ["run.failed"] })
      ).status,
    ).toBe(404);
    expect((await request(api.app).post(`${endpointPath}/test`).set(auth)).status).toBe(404);
    const revoke = await request(api.app).post(`/console/api/keys/${theirs.liveKeyId}/revoke`).set(auth);
    expect(revoke.status).toBe(404);
    expect(
      (await api.database.db.apiKey.findUniqueOrThrow({ where: { id: theirs.liveKeyId } })).revokedAt,
    ).toBeNull();

    const run = await request(api.app)
      .post("/api/v1/models/acme/echo/run")
      .set("Authorization", `Bearer ${theirs.liveKey}`)
      .send({ input: { prompt: "theirs" } })
      .expect(201);
    const runId = run.body.data.run_id as string;
    expect((await request(api.app).get(`/console/api/live/runs/${runId}`).set(auth)).status).toBe(404);
    expect((await request(api.app).get(`/console/api/live/runs/${runId}/detail`).set(auth)).status).toBe(404);
    expect((await request(api.app).post(`/console/api/live/runs/${runId}/cancel`).set(auth)).status).toBe(
      404,
    );
    // Their key cannot be borrowed to start a run either.
    const borrowed = await request(api.app)
      .post("/console/api/live/models/acme/echo/run")
      .set({ ...auth, "X-Api-Key-Id": theirs.liveKeyId })
      .send({ input: { prompt: "mine" } });
    expect(borrowed.status).toBe(400);
    expect((await api.database.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("QUEUED");
  });

  it("when a person starts a run from the console, then it is attributed to the chosen key of the chosen mode", async () => {
    const { cookie, csrf } = await signIn("member@example.com");
    const auth = { Cookie: cookie, "X-CSRF-Token": csrf };
    const noKey = await request(api.app)
      .post("/console/api/test/models/acme/echo/run")
      .set(auth)
      .send({ input: { prompt: "hi" } });
    expect(noKey.status).toBe(400);
    const wrongMode = await request(api.app)
      .post("/console/api/test/models/acme/echo/run")
      .set({ ...auth, "X-Api-Key-Id": ours.liveKeyId })
      .send({ input: { prompt: "hi" } });
    expect(wrongMode.status).toBe(400);
    const run = await request(api.app)
      .post("/console/api/test/models/acme/echo/run")
      .set({ ...auth, "X-Api-Key-Id": ours.testKeyId })
      .send({ input: { prompt: "hi" } })
      .expect(201);
    const stored = await api.database.db.run.findUniqueOrThrow({ where: { id: run.body.data.run_id } });
    expect(stored).toMatchObject({ apiKeyId: ours.testKeyId, mode: "test", accountId: ours.account.id });
    // Test data stays in test: the live list does not show it.
    const live = await request(api.app).get("/console/api/live/runs").set(auth).expect(200);
    expect(live.body.data.runs.map((r: { run_id: string }) => r.run_id)).not.toContain(stored.id);
    const detail = await request(api.app)
      .get(`/console/api/test/runs/${stored.id}/detail`)
      .set(auth)
      .expect(200);
    expect(detail.body.data).toMatchObject({ run_id: stored.id, input: { prompt: "hi" }, mode: "test" });
  });

  it("when a member tries to manage keys or webhook endpoints, then 403; reading is allowed", async () => {
    const { cookie, csrf } = await signIn("member@example.com");
    const auth = { Cookie: cookie, "X-CSRF-Token": csrf };
    expect(
      (await request(api.app).post("/console/api/keys").set(auth).send({ name: "x", mode: "live" })).status,
    ).toBe(403);
    expect(
      (
        await request(api.app)
          .post("/console/api/live/webhooks")
          .set(auth)
          .send({ url: "https://example.com/h" })
      ).status,
    ).toBe(403);
    expect((await request(api.app).get("/console/api/live/webhooks/default/secret").set(auth)).status).toBe(
      403,
    );
    await request(api.app).get("/console/api/live/webhooks").set(auth).expect(200);
    await request(api.app).get("/console/api/keys").set(auth).expect(200);
  });

  it("when a session is idle past its limit or past its absolute expiry, then it is refused and deleted", async () => {
    const idle = await signIn("owner@example.com");
    const absolute = await signIn("owner@example.com");
    const sessions = await api.database.db.consoleSession.findMany({
      orderBy: { createdAt: "desc" },
      take: 2,
    });
    const [second, first] = sessions;
    await api.database.db.consoleSession.update({
      where: { id: first!.id },
      data: { lastSeenAt: new Date(Date.now() - (api.config.CONSOLE_SESSION_IDLE_MINUTES * 60_000 + 1000)) },
    });
    await api.database.db.consoleSession.update({
      where: { id: second!.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    for (const { cookie } of [idle, absolute]) {
      const res = await request(api.app).get("/console/api/session").set("Cookie", cookie);
      expect(res.status).toBe(401);
    }
    expect(
      await api.database.db.consoleSession.count({ where: { id: { in: [first!.id, second!.id] } } }),
    ).toBe(0);
  });

  it("when a person signs in again, then their sessions that ended without a sign-out are swept", async () => {
    await signIn("member@example.com");
    const member = await api.database.db.user.findUniqueOrThrow({ where: { email: "member@example.com" } });
    await api.database.db.consoleSession.updateMany({
      where: { userId: member.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await signIn("member@example.com");
    const left = await api.database.db.consoleSession.findMany({ where: { userId: member.id } });
    expect(left).toHaveLength(1);
    expect(left[0]!.expiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("when a person signs out or is disabled, then the session no longer works", async () => {
    const a = await signIn("owner@example.com");
    await request(api.app)
      .post("/console/api/session/sign-out")
      .set({ Cookie: a.cookie, "X-CSRF-Token": a.csrf })
      .expect(200);
    expect((await request(api.app).get("/console/api/session").set("Cookie", a.cookie)).status).toBe(401);
    const b = await signIn("other@example.com");
    await api.database.db.user.update({
      where: { email: "other@example.com" },
      data: { disabledAt: new Date() },
    });
    expect((await request(api.app).get("/console/api/session").set("Cookie", b.cookie)).status).toBe(401);
    expect((await signIn("other@example.com")).res.status).toBe(401);
  });

  it("when the account is read, then balance, reserved, available, the ledger by run and usage per day agree", async () => {
    const key = { Authorization: `Bearer ${ours.liveKey}` };
    const run = await request(api.app)
      .post("/api/v1/models/acme/echo/run")
      .set(key)
      .send({ input: { prompt: "count me" } })
      .expect(201);
    const account = await request(api.app).get("/api/v1/account").set(key).expect(200);
    expect(account.body.data).toMatchObject({ balance: 1000, mode: "live" });
    expect(account.body.data.available).toBe(account.body.data.balance - account.body.data.reserved);
    expect(account.body.data.reserved).toBeGreaterThan(0);
    const ledger = await request(api.app)
      .get(`/api/v1/account/ledger?run_id=${run.body.data.run_id}`)
      .set(key)
      .expect(200);
    expect(ledger.body.data.entries).toEqual([
      expect.objectContaining({
        kind: "RESERVE",
        run_id: run.body.data.run_id,
        reserved_delta: expect.any(Number),
      }),
    ]);
    const page = await request(api.app).get("/api/v1/account/ledger?limit=1").set(key).expect(200);
    expect(page.body.data.next_cursor).toEqual(expect.any(String));
    const next = await request(api.app)
      .get(`/api/v1/account/ledger?limit=1&cursor=${page.body.data.next_cursor}`)
      .set(key)
      .expect(200);
    expect(next.body.data.entries[0].id).not.toBe(page.body.data.entries[0].id);
    const usage = await request(api.app).get("/api/v1/account/usage?days=7").set(key).expect(200);
    expect(usage.body.data.days).toHaveLength(7);
    expect(usage.body.data.days.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    await request(api.app).get("/api/v1/account/usage?days=0").set(key).expect(400);
    await request(api.app).get("/api/v1/account/ledger?run_id=nope").set(key).expect(400);
  });

  it("when anything is logged or answered, then no password, hash or session token is in it", async () => {
    const { cookie } = await signIn("owner@example.com");
    const token = cookie.split("=")[1]!;
    const hashes = (await api.database.db.user.findMany()).map((u) => u.passwordHash);
    const logs = api.logLines.join("\n");
    expect(logs).not.toContain(PASSWORD);
    expect(logs).not.toContain(token);
    for (const hash of hashes) expect(logs).not.toContain(hash);
    const session = await request(api.app).get("/console/api/session").set("Cookie", cookie).expect(200);
    expect(JSON.stringify(session.body)).not.toMatch(/argon2|password/i);
  });

  it("when a console page is asked for, then index.html answers for any path with a strict CSP; unknown API paths stay JSON 404s", async () => {
    const page = await request(api.app).get("/console/runs/run_x").expect(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(page.headers["content-security-policy"]).toMatch(/default-src 'self'/);
    expect(page.headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
    const { cookie } = await signIn("owner@example.com");
    const missing = await request(api.app).get("/console/api/live/nothing").set("Cookie", cookie).expect(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
    expect((await request(api.app).get("/console/api/elsewhere/runs").set("Cookie", cookie)).status).toBe(
      404,
    );
    expect((await request(api.app).get("/console/api/keys")).status).toBe(401);
  });
});
