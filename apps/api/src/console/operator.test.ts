import request from "supertest";
import { createEndpoint, ledgerTotals, setLowBalanceThreshold } from "@svc/db";
import { createAccountWithKeys, seedTestModels, startFakeCog, type FakeCog } from "@svc/testkit";
import { addUser } from "@svc/use-cases";
import { OPERATOR_ROUTES } from "./operator.js";
import { expressPath } from "../http/route.js";
import { startApi, type ApiHarness } from "../test/harness.js";

const PASSWORD = "a long enough password";

// The operator console's API in-process, against the real Postgres and Redis: role boundaries,
// ledger entries and audit entries for every change, and one account's change never touching another.
describe("operator console API", () => {
  let api: ApiHarness;
  let house: Awaited<ReturnType<typeof createAccountWithKeys>>;
  let customer: Awaited<ReturnType<typeof createAccountWithKeys>>;
  let bystander: Awaited<ReturnType<typeof createAccountWithKeys>>;
  let operator: Record<string, string>;
  let cog: FakeCog;

  beforeAll(async () => {
    api = await startApi({ PUBLIC_BASE_URL: "https://console.example.com" });
    await seedTestModels(api.database.db);
    house = await createAccountWithKeys(api.database.db, 0, "house");
    customer = await createAccountWithKeys(api.database.db, 1000, "customer");
    bystander = await createAccountWithKeys(api.database.db, 1000, "bystander");
    for (const [email, account, role] of [
      ["ops@example.com", house.account.id, "operator"],
      ["owner@customer.example", customer.account.id, "owner"],
      ["member@customer.example", customer.account.id, "member"],
    ] as const)
      expect(
        (await addUser(api.database.db, { accountId: account, email, password: PASSWORD, role })).kind,
      ).toBe("created");
    operator = await signIn("ops@example.com");
    cog = await startFakeCog();
  });
  afterAll(async () => {
    await cog?.close();
    await api.close();
  });

  async function signIn(email: string) {
    const res = await request(api.app)
      .post("/console/api/session")
      .send({ email, password: PASSWORD })
      .expect(201);
    const cookie = (res.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!;
    return { Cookie: cookie, "X-CSRF-Token": res.body.data.csrf_token as string };
  }
  const call = (
    method: "get" | "post" | "patch",
    path: string,
    as: Record<string, string>,
    body?: object,
  ) => {
    const r = request(api.app)[method](`/console/api${path}`).set(as);
    return body ? r.send(body) : r;
  };
  const audit = async () =>
    (await call("get", "/operator/audit?limit=100", operator).expect(200)).body.data.entries;

  it("when an owner, a member or a signed-out caller reaches any operator route, then 403 or 401 and nothing changes", async () => {
    const owner = await signIn("owner@customer.example");
    const member = await signIn("member@customer.example");
    const before = await ledgerTotals(api.database.db, customer.account.id);
    expect(OPERATOR_ROUTES.length).toBeGreaterThanOrEqual(10);
    for (const { declaration } of OPERATOR_ROUTES) {
      const path = expressPath(declaration.path)
        .replace(":accountId", customer.account.id)
        .replace(":userId", "usr_x")
        .replace("*modelId", "test/instant");
      const body = { amount: 100, reason: "x", name: "x", tokens_per_unit: 1 };
      const method = declaration.method as "get" | "post" | "patch";
      for (const who of [owner, member]) {
        const res = await call(method, path, who, method === "get" ? undefined : body);
        expect([declaration.method, path, res.status, res.body.error?.code]).toEqual([
          declaration.method,
          path,
          403,
          "FORBIDDEN",
        ]);
      }
      const anonymous = await call(method, path, {});
      expect(anonymous.status).toBe(401);
    }
    // An API key is no operator either: the operator routes are not under /api/v1.
    await request(api.app)
      .get("/api/v1/operator/accounts")
      .set("Authorization", `Bearer ${customer.liveKey}`)
      .expect(404);
    expect(await ledgerTotals(api.database.db, customer.account.id)).toEqual(before);
    expect(await audit()).toEqual([]);
  });

  it("when an operator grants and deducts tokens with a reason, then the ledger has the entries, the audit log who did it, and no other account moved", async () => {
    const others = await ledgerTotals(api.database.db, bystander.account.id);
    const granted = await call("post", `/operator/accounts/${customer.account.id}/adjustments`, operator, {
      amount: 500,
      reason: "invoice 114 paid",
    }).expect(201);
    expect(granted.body.data).toMatchObject({ id: customer.account.id, balance: 1500, available: 1500 });
    await call("post", `/operator/accounts/${customer.account.id}/adjustments`, operator, {
      amount: -200,
      reason: "refund of a duplicate grant",
    }).expect(201);
    const refused = await call("post", `/operator/accounts/${customer.account.id}/adjustments`, operator, {
      amount: -5000,
      reason: "too much",
    }).expect(402);
    expect(refused.body.error.code).toBe("INSUFFICIENT_TOKENS");
    for (const bad of [
      { amount: 0, reason: "x" },
      { amount: 5, reason: "" },
      { amount: 1.5, reason: "x" },
      { amount: 5 },
    ])
      await call("post", `/operator/accounts/${customer.account.id}/adjustments`, operator, bad).expect(400);
    await call("post", "/operator/accounts/acct_nobody/adjustments", operator, {
      amount: 5,
      reason: "x",
    }).expect(404);

    const totals = await ledgerTotals(api.database.db, customer.account.id);
    expect(totals.cached).toEqual({ balance: 1300, reserved: 0 });
    expect(totals.ledger).toEqual(totals.cached);
    const entries = await api.database.db.ledgerEntry.findMany({
      where: { accountId: customer.account.id, kind: { in: ["GRANT", "DEDUCT"] } },
      orderBy: { createdAt: "asc" },
    });
    expect(entries.map((e) => [e.kind, e.amount, e.note])).toEqual([
      ["GRANT", 1000, "grant"],
      ["GRANT", 500, "invoice 114 paid"],
      ["DEDUCT", 200, "refund of a duplicate grant"],
    ]);
    expect((await audit()).slice(0, 2)).toMatchObject([
      {
        actor_email: "ops@example.com",
        action: "tokens.deduct",
        account_id: customer.account.id,
        before: { balance: 1500, reserved: 0 },
        after: { balance: 1300, amount: -200 },
        reason: "refund of a duplicate grant",
      },
      { action: "tokens.grant", after: { balance: 1500, amount: 500 }, reason: "invoice 114 paid" },
    ]);
    expect(await ledgerTotals(api.database.db, bystander.account.id)).toEqual(others);
    const detail = await call("get", `/operator/accounts/${customer.account.id}`, operator).expect(200);
    expect(detail.body.data.ledger[0]).toMatchObject({ kind: "DEDUCT", amount: 200, balance_delta: -200 });
  });

  it("when a deduction leaves an account below its low-balance threshold, then account.balance_low is recorded once", async () => {
    const { account } = await createAccountWithKeys(api.database.db, 100, "deducted");
    await setLowBalanceThreshold(api.database.db, account.id, 50);
    await createEndpoint(
      api.database.db,
      { accountId: account.id, mode: "live" },
      { url: "https://example.com/low", events: ["account.balance_low"], secretEnc: "x" },
      10,
    );
    for (const amount of [-60, -10])
      await call("post", `/operator/accounts/${account.id}/adjustments`, operator, {
        amount,
        reason: "correction",
      }).expect(201);
    const alerts = await api.database.db.delivery.findMany({ where: { accountId: account.id } });
    expect(alerts.map((d) => JSON.parse(d.body).data)).toEqual([
      { available_tokens: 40, threshold: 50, timestamp: expect.any(String) },
    ]);
  });

  it("when an operator lists and reads accounts, then figures, people and keys show, and no key or endpoint secret is anywhere", async () => {
    const listed = await call("get", "/operator/accounts", operator).expect(200);
    expect(listed.body.data.accounts.map((a: { id: string }) => a.id)).toEqual(
      expect.arrayContaining([customer.account.id, bystander.account.id, house.account.id]),
    );
    const found = await call("get", "/operator/accounts?q=bystand", operator).expect(200);
    expect(found.body.data.accounts.map((a: { id: string }) => a.id)).toEqual([bystander.account.id]);
    const detail = await call("get", `/operator/accounts/${customer.account.id}`, operator).expect(200);
    expect(detail.body.data.account).toMatchObject({
      id: customer.account.id,
      name: "customer",
      people: 2,
      weight: 1,
    });
    expect(detail.body.data.people.map((p: { email: string }) => p.email).sort()).toEqual([
      "member@customer.example",
      "owner@customer.example",
    ]);
    expect(detail.body.data.keys.map((k: { id: string }) => k.id).sort()).toEqual(
      [customer.liveKeyId, customer.testKeyId].sort(),
    );
    const text = JSON.stringify([listed.body, detail.body, await audit()]);
    expect(text).not.toContain(customer.liveKey);
    expect(text).not.toContain("whsec_");
    expect(text).not.toMatch(/"hash"|password|secret_enc/i);
    await call("get", "/operator/accounts/acct_nobody", operator).expect(404);
  });

  it("when an operator sets an account's scheduling and manages its people, then each change is audited with before and after, and another account is untouched", async () => {
    const changed = await call("patch", `/operator/accounts/${customer.account.id}`, operator, {
      weight: 3,
      max_concurrent_runs: 7,
    }).expect(200);
    expect(changed.body.data).toMatchObject({ weight: 3, max_concurrent_runs: 7 });
    await call("patch", `/operator/accounts/${customer.account.id}`, operator, { weight: 0 }).expect(400);
    const made = await call("post", `/operator/accounts/${customer.account.id}/people`, operator, {
      email: "New.Person@Customer.example",
      password: PASSWORD,
      role: "member",
    }).expect(201);
    expect(made.body.data).toMatchObject({
      email: "new.person@customer.example",
      role: "member",
      disabled_at: null,
    });
    await call("post", `/operator/accounts/${customer.account.id}/people`, operator, {
      email: "x@customer.example",
      password: PASSWORD,
      role: "operator",
    }).expect(400);
    const person = await signIn("new.person@customer.example");
    const disabled = await call("patch", `/operator/people/${made.body.data.id}`, operator, {
      disabled: true,
      role: "owner",
    }).expect(200);
    expect(disabled.body.data).toMatchObject({ role: "owner", disabled_at: expect.any(String) });
    // Disabled: their session has ended.
    await call("get", "/session", person).expect(401);
    const me = (await call("get", "/session", operator).expect(200)).body.data.user.id as string;
    await call("patch", `/operator/people/${me}`, operator, { disabled: true }).expect(400);
    const bystanderRow = await api.database.db.account.findUniqueOrThrow({
      where: { id: bystander.account.id },
    });
    expect(bystanderRow).toMatchObject({ weight: 1, maxConcurrentRuns: null });
    const entries = await audit();
    expect(entries.slice(0, 3)).toMatchObject([
      {
        action: "person.update",
        account_id: customer.account.id,
        target_id: made.body.data.id,
        before: { role: "member", disabled: false },
        after: { role: "owner", disabled: true },
      },
      { action: "person.create", after: { email: "new.person@customer.example", role: "member" } },
      {
        action: "account.scheduling",
        before: { weight: 1, max_concurrent_runs: null },
        after: { weight: 3, max_concurrent_runs: 7 },
      },
    ]);
    const onlyBystander = await call(
      "get",
      `/operator/audit?account_id=${bystander.account.id}`,
      operator,
    ).expect(200);
    expect(onlyBystander.body.data.entries).toEqual([]);
  });

  it("when an operator imports a Cog model and changes its price, servers and status, then the catalogue has it and the audit log both changes", async () => {
    const imported = await call("post", "/operator/models/import", operator, {
      cog_url: cog.url,
      id: "ops/imported",
      tokens_per_unit: 3,
    }).expect(201);
    expect(imported.body.data.models[0]).toMatchObject({
      id: "ops/imported",
      runner: "cog",
      servers: [cog.url],
      tokens_per_unit: 3,
      status: "active",
    });
    const changed = await call("patch", "/operator/models/ops/imported", operator, {
      tokens_per_unit: 4,
      servers: [cog.url, "http://127.0.0.1:1"],
      concurrency: 2,
      status: "deprecated",
    }).expect(200);
    expect(changed.body.data.models[0]).toMatchObject({
      tokens_per_unit: 4,
      concurrency: 2,
      status: "deprecated",
    });
    await call("patch", "/operator/models/test/instant", operator, {
      servers: ["http://127.0.0.1:2"],
    }).expect(400);
    await call("patch", "/operator/models/nobody/nothing", operator, { status: "active" }).expect(404);
    await call("post", "/operator/models/import", operator, {
      cog_url: "http://127.0.0.1:1",
      id: "ops/unreachable",
      tokens_per_unit: 1,
    }).expect(400);
    const models = await call("get", "/operator/models", operator).expect(200);
    const ours = models.body.data.models.find((m: { id: string }) => m.id === "ops/imported");
    expect(ours).toMatchObject({ servers: [cog.url, "http://127.0.0.1:1"], max_queue: null });
    expect(models.body.data.models.find((m: { id: string }) => m.id === "acme/echo")).toMatchObject({
      runner: "builtin",
      queue: null,
    });
    const [update, importEntry] = (await audit()).slice(0, 2);
    expect(update).toMatchObject({
      action: "model.update",
      target_id: "ops/imported",
      account_id: null,
      before: { status: "active", pricing: { tokens_per_unit: 3 } },
      after: { status: "deprecated", pricing: { tokens_per_unit: 4 } },
    });
    expect(importEntry).toMatchObject({ action: "model.import", target_id: "ops/imported" });
  });
});
