import request from "supertest";
import { createEndpoint, ledgerTotals, setLowBalanceThreshold } from "@svc/db";
import { createAccountWithKeys, seedTestModels, startFakeCog, type FakeCog } from "@svc/testkit";
import { addUser } from "@svc/use-cases";
import { OPERATOR_ROUTES } from "./index.js";
import { expressPath } from "../../http/route.js";
import { startApi, type ApiHarness } from "../../test/harness.js";

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
      reason: "enterprise plan",
    }).expect(200);
    expect(changed.body.data).toMatchObject({ weight: 3, max_concurrent_runs: 7 });
    await call("patch", `/operator/accounts/${customer.account.id}`, operator, {
      weight: 0,
      reason: "x",
    }).expect(400);
    // Every operator action says why.
    const unexplained = await call("patch", `/operator/accounts/${customer.account.id}`, operator, {
      weight: 2,
    }).expect(400);
    expect(unexplained.body.error.details).toEqual([
      { path: "reason", message: expect.stringMatching(/^expected a reason/) },
    ]);
    const made = await call("post", `/operator/accounts/${customer.account.id}/people`, operator, {
      email: "New.Person@Customer.example",
      password: PASSWORD,
      role: "member",
      reason: "ticket 12: new hire",
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
      reason: "x",
    }).expect(400);
    await call("post", `/operator/accounts/${customer.account.id}/people`, operator, {
      email: "no.reason@customer.example",
      password: PASSWORD,
      role: "owner",
    }).expect(400);
    expect(await api.database.db.user.count({ where: { email: "no.reason@customer.example" } })).toBe(0);
    const person = await signIn("new.person@customer.example");
    const disabled = await call("patch", `/operator/people/${made.body.data.id}`, operator, {
      disabled: true,
      role: "owner",
      reason: "left the company",
    }).expect(200);
    expect(disabled.body.data).toMatchObject({ role: "owner", disabled_at: expect.any(String) });
    // Disabled: their session has ended.
    await call("get", "/session", person).expect(401);
    const me = (await call("get", "/session", operator).expect(200)).body.data.user.id as string;
    await call("patch", `/operator/people/${me}`, operator, { disabled: true, reason: "x" }).expect(400);
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
        reason: "left the company",
      },
      {
        action: "person.create",
        after: { email: "new.person@customer.example", role: "member" },
        reason: "ticket 12: new hire",
      },
      {
        action: "account.scheduling",
        before: { weight: 1, max_concurrent_runs: null },
        after: { weight: 3, max_concurrent_runs: 7 },
        reason: "enterprise plan",
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
      reason: "spring launch",
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
      reason: "second server",
    }).expect(200);
    expect(changed.body.data.models[0]).toMatchObject({
      tokens_per_unit: 4,
      concurrency: 2,
      status: "deprecated",
    });
    await call("patch", "/operator/models/test/instant", operator, {
      servers: ["http://127.0.0.1:2"],
      reason: "x",
    }).expect(400);
    await call("patch", "/operator/models/ops/imported", operator, { status: "active" }).expect(400);
    await call("patch", "/operator/models/nobody/nothing", operator, {
      status: "active",
      reason: "x",
    }).expect(404);
    await call("post", "/operator/models/import", operator, {
      cog_url: "http://127.0.0.1:1",
      id: "ops/unreachable",
      tokens_per_unit: 1,
      reason: "x",
    }).expect(400);
    // A refusal's reason is in its message, not only in its details.
    const metadata = await call("post", "/operator/models/import", operator, {
      cog_url: "http://169.254.169.254/latest",
      id: "ops/metadata",
      tokens_per_unit: 1,
      reason: "x",
    }).expect(400);
    expect(metadata.body.error.message).toMatch(/cog_url: .*metadata address/);
    // The pool monitor's last look at each server: one READY, one whose setup failed.
    await api.scheduler.setHealth("ops/imported", cog.url, true, "READY");
    await api.scheduler.setHealth("ops/imported", "http://127.0.0.1:1", false, "SETUP_FAILED");
    const models = await call("get", "/operator/models", operator).expect(200);
    const ours = models.body.data.models.find((m: { id: string }) => m.id === "ops/imported");
    expect(ours).toMatchObject({ servers: [cog.url, "http://127.0.0.1:1"], max_queue: null });
    expect(ours.queue).toMatchObject({
      servers_down: ["http://127.0.0.1:1"],
      servers: expect.arrayContaining([
        { url: cog.url, up: true, state: "READY" },
        { url: "http://127.0.0.1:1", up: false, state: "SETUP_FAILED" },
      ]),
    });
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
      reason: "second server",
    });
    expect(importEntry).toMatchObject({
      action: "model.import",
      target_id: "ops/imported",
      before: null,
      reason: "spring launch",
    });
  });

  it("when grants would bring a balance past what a token column holds, then 400 VALIDATION_ERROR and nothing moves, never a 500", async () => {
    const rich = await createAccountWithKeys(api.database.db, 0, "rich");
    const grant = (amount: number) =>
      call("post", `/operator/accounts/${rich.account.id}/adjustments`, operator, {
        amount,
        reason: "big deal",
      });
    await grant(1_000_000_000).expect(201);
    await grant(1_000_000_000).expect(201);
    const refused = await grant(1_000_000_000).expect(400);
    expect(refused.body.error).toMatchObject({
      code: "VALIDATION_ERROR",
      message: expect.stringMatching(/2147483647 tokens, the most an account can hold/),
    });
    await grant(2_147_483_648).expect(400);
    await call("post", "/operator/accounts", operator, {
      name: "too rich",
      tokens: 3_000_000_000,
      reason: "x",
    }).expect(400);
    // What is left fits exactly.
    await grant(147_483_647).expect(201);
    const totals = await ledgerTotals(api.database.db, rich.account.id);
    expect(totals.cached).toEqual({ balance: 2_147_483_647, reserved: 0 });
    expect(totals.ledger).toEqual(totals.cached);
    await grant(1).expect(400);
    const listed = await call("get", `/operator/accounts?q=${rich.account.id}`, operator).expect(200);
    expect(listed.body.data.accounts[0]).toMatchObject({ balance: 2_147_483_647 });
  });

  it("when a Cog import names a link-local or metadata address, a closed port or a server that is not Cog, then it says only that, whatever the server answered", async () => {
    const importing = (cog_url: string, id = "ops/probe") =>
      call("post", "/operator/models/import", operator, { cog_url, id, tokens_per_unit: 1, reason: "probe" });
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "http://2852039166/",
      "http://[fe80::1]:5000",
      "http://[::ffff:169.254.169.254]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[fd00:ec2::254]/",
      "http://100.100.100.200/",
      "http://[64:ff9b::a9fe:a9fe]/",
    ]) {
      const res = await importing(url).expect(400);
      expect([url, res.body.error.details?.[0]?.message]).toEqual([
        url,
        expect.stringMatching(/link-local or cloud metadata/),
      ]);
    }
    // Two services that are not Cog, answering 404 and 403: one and the same message, no status.
    const other = await startFakeCog();
    const notFound = await importing(`${other.url}/nothing`).expect(400);
    await other.close();
    const closed = await importing(other.url).expect(400);
    expect(notFound.body.error.message).toMatch(/did not answer as a Cog server/);
    expect(closed.body.error.message).toMatch(/could not be reached/);
    for (const res of [notFound, closed])
      expect(res.body.error.message).not.toMatch(/\b40\d\b|answered|fetch failed/);
    // What is no URL at all is a 400 too, at import and when servers change.
    await importing("not a url").expect(400);
    await call("patch", "/operator/models/ops/imported", operator, {
      servers: ["not a url"],
      reason: "x",
    }).expect(400);
    // A private address is allowed: model servers usually are.
    await importing(cog.url, "ops/private").expect(201);
    expect(await api.database.db.model.count({ where: { id: "ops/probe" } })).toBe(0);
  });

  it("when an import names a model that exists, then 409 MODEL_EXISTS unless replace, and a replacement is audited with what it replaced; no public field names the server", async () => {
    const body = { cog_url: cog.url, id: "ops/twice", tokens_per_unit: 2, reason: "first" };
    await call("post", "/operator/models/import", operator, body).expect(201);
    const again = await call("post", "/operator/models/import", operator, {
      ...body,
      tokens_per_unit: 9,
    }).expect(409);
    expect(again.body.error.code).toBe("MODEL_EXISTS");
    expect(
      (await api.database.db.model.findUniqueOrThrow({ where: { id: "ops/twice" } })).pricing,
    ).toMatchObject({
      tokens_per_unit: 2,
    });
    await call("post", "/operator/models/import", operator, {
      ...body,
      tokens_per_unit: 9,
      replace: true,
      reason: "new price",
    }).expect(201);
    const [replaced] = await audit();
    expect(replaced).toMatchObject({
      action: "model.import",
      target_id: "ops/twice",
      before: { pricing: { tokens_per_unit: 2 } },
      after: { pricing: { tokens_per_unit: 9 } },
      reason: "new price",
    });
    const shown = await request(api.app)
      .get("/api/v1/models/ops/twice")
      .set("Authorization", `Bearer ${customer.liveKey}`)
      .expect(200);
    expect(JSON.stringify(shown.body)).not.toContain(new URL(cog.url).host);
  });

  it("when operators act on an account, then its owners read it in their security log, members may not, and other accounts' entries never show", async () => {
    await call("post", `/operator/accounts/${customer.account.id}/adjustments`, operator, {
      amount: 7,
      reason: "goodwill for the outage",
    }).expect(201);
    await call("post", `/operator/accounts/${bystander.account.id}/adjustments`, operator, {
      amount: 3,
      reason: "not the customer's business",
    }).expect(201);
    const owner = await signIn("owner@customer.example");
    const log = (await call("get", "/security-log?limit=100", owner).expect(200)).body.data.entries as {
      account_id: string;
      reason: string;
      action: string;
      actor_email: string;
    }[];
    expect(log[0]).toMatchObject({
      action: "tokens.grant",
      actor_email: "ops@example.com",
      reason: "goodwill for the outage",
    });
    expect(log.every((e) => e.account_id === customer.account.id)).toBe(true);
    expect(log.some((e) => e.reason === "not the customer's business")).toBe(false);
    await call("get", "/security-log", await signIn("member@customer.example")).expect(403);
  });
});
