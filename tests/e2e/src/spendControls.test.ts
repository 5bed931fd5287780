import { verify as verifyServiceSignature } from "@octokit/webhooks-methods";
import { ledgerTotals, setLowBalanceThreshold } from "@svc/db";
import { ModelRunClient, ModelRunError } from "@svc/sdk";
import { startHttpsReceiver, waitFor, type HttpsReceiver } from "@svc/testkit";
import { adminCli, limitedKey, startService, type E2EService } from "./service.js";

// Key budgets and spend alerts end to end: the built API as two processes (creations race through
// both), one worker delivering the alerts to a real HTTPS receiver, keys made with the admin CLI.
describe("spend controls end to end", () => {
  let service: E2EService;
  let secondApi: string;
  const receivers: HttpsReceiver[] = [];

  beforeAll(async () => {
    service = await startService();
    await service.startApi();
    secondApi = (await service.startApi()).base;
    await service.startWorker({ SWEEP_INTERVAL_MS: "200", WEBHOOK_BACKOFF_BASE_MS: "100" });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await service?.stop();
  });

  const receiver = async () => {
    const r = await startHttpsReceiver();
    receivers.push(r);
    return r;
  };
  const cli = (argv: string[]) => adminCli(service.database.db, argv);
  const create = (client: ModelRunClient) =>
    client.runs.create("test/instant", { input: { prompt: "spend", num_images: 1 } }).then(
      (r) => ({ ok: true as const, id: r.run_id }),
      (error: unknown) => {
        if (error instanceof ModelRunError)
          return { ok: false as const, status: error.status, code: error.code };
        throw error;
      },
    );
  const eventsOf = (r: HttpsReceiver, event: string) =>
    r.requests
      .filter((q) => q.headers["x-service-event"] === event)
      .map((q) => ({ ...q, json: JSON.parse(q.body) }));

  it("when 3N creations through two API processes race for a key budget of N runs, then exactly N are made, the rest are 402 KEY_BUDGET_EXCEEDED, and key.budget_reached is delivered once", async () => {
    const n = 10;
    const { accountId, client: owner } = await service.account(10_000);
    const r = await receiver();
    const endpoint = await owner.webhooks.create({ url: r.url("/alerts"), events: ["key.budget_reached"] });
    const capped = await limitedKey(service.database.db, accountId, "capped", ["--budget", `${n * 5}/day`]);
    const clients = [service.base, secondApi].map(
      (baseUrl) => new ModelRunClient({ apiKey: capped.key, baseUrl }),
    );
    const results = await Promise.all(Array.from({ length: 3 * n }, (_, i) => create(clients[i % 2]!)));
    expect(results.filter((x) => x.ok)).toHaveLength(n);
    const refused = results.filter((x) => !x.ok);
    expect(refused).toHaveLength(2 * n);
    expect(new Set(refused.map((x) => `${x.status} ${x.code}`))).toEqual(
      new Set(["402 KEY_BUDGET_EXCEEDED"]),
    );

    const [alert] = await r.waitForRequests(1);
    expect(alert!.headers["x-service-event"]).toBe("key.budget_reached");
    expect(
      await verifyServiceSignature(
        endpoint.signing_secret,
        alert!.body,
        String(alert!.headers["x-service-signature"]),
      ),
    ).toBe(true);
    expect(JSON.parse(alert!.body)).toMatchObject({
      event: "key.budget_reached",
      webhook_id: endpoint.id,
      data: {
        key_id: capped.id,
        key_name: "capped",
        budget_tokens: n * 5,
        period: "day",
        used_tokens: n * 5,
        needed_tokens: 5,
      },
    });
    // Every run ends, charged in full: the budget stays used, and the ledger adds up.
    await waitFor(async () => {
      const runs = await service.database.db.run.findMany({ where: { accountId } });
      return runs.length === n && runs.every((run) => run.status === "COMPLETED");
    });
    const totals = await ledgerTotals(service.database.db, accountId);
    expect(totals.cached).toEqual(totals.ledger);
    expect(totals.cached).toEqual({ balance: 10_000 - n * 5, reserved: 0 });
    const key = await service.database.db.apiKey.findUniqueOrThrow({ where: { id: String(capped.id) } });
    expect(key.budgetUsed).toBe(n * 5);
    // Refused again: still one alert for the period.
    expect((await create(clients[0]!)).ok).toBe(false);
    expect(
      await service.database.db.delivery.count({ where: { accountId, event: "key.budget_reached" } }),
    ).toBe(1);
    const mine = new ModelRunClient({ apiKey: capped.key, baseUrl: secondApi });
    expect((await mine.account.get()).key?.budget).toMatchObject({
      tokens: n * 5,
      used: n * 5,
      remaining: 0,
    });
  });

  it("when reservations take the account below its low-balance threshold, then account.balance_low is delivered once per crossing, and again after a grant", async () => {
    const { accountId, client, liveKey } = await service.account(100);
    const r = await receiver();
    const endpoint = await client.webhooks.create({ url: r.url("/low"), events: ["account.balance_low"] });
    await setLowBalanceThreshold(service.database.db, accountId, 50);
    const other = new ModelRunClient({ apiKey: liveKey, baseUrl: secondApi });
    // 100 -> 55: above. Then 45, 35, 25 across both processes: one crossing.
    for (let i = 0; i < 9; i++) expect((await create(client)).ok).toBe(true);
    expect(await service.database.db.delivery.count({ where: { accountId } })).toBe(0);
    await Promise.all(Array.from({ length: 3 }, (_, i) => create(i % 2 ? other : client)));
    const [first] = await r.waitForRequests(1);
    expect(
      await verifyServiceSignature(
        endpoint.signing_secret,
        first!.body,
        String(first!.headers["x-service-signature"]),
      ),
    ).toBe(true);
    expect(JSON.parse(first!.body)).toMatchObject({
      event: "account.balance_low",
      webhook_id: endpoint.id,
      data: { threshold: 50 },
    });
    expect(JSON.parse(first!.body).data.available_tokens).toBeLessThan(50);
    await waitFor(async () => (await client.account.get()).reserved === 0);
    // A top-up brings available tokens back above the threshold: the next crossing is told again.
    await cli(["tokens", "grant", "--account", accountId, "--amount", "100"]);
    const { available } = await client.account.get();
    expect(available).toBe(140);
    await Promise.all(Array.from({ length: 20 }, (_, i) => create(i % 2 ? other : client)));
    await r.waitForRequests(2);
    expect(eventsOf(r, "account.balance_low")).toHaveLength(2);
    expect(
      await service.database.db.delivery.count({ where: { accountId, event: "account.balance_low" } }),
    ).toBe(2);
  });
});
