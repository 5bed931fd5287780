import { createApiKey } from "@svc/db";
import { ModelRunClient, ModelRunError } from "@svc/sdk";
import { startService, type E2EService } from "./service.js";

// Test keys, as their owner and as someone farming free inference would use them, against the
// built API and worker: free runs bounded per account, and a test key sees no live data.
describe("test mode", () => {
  let service: E2EService;

  beforeAll(async () => {
    service = await startService({ TEST_RUNS_PER_DAY: "3" });
    await service.startApi();
    await service.startWorker();
  });
  afterAll(() => service?.stop());

  /** An account's extra test keys, each with its own client (and its own rate budget). */
  const moreTestClients = async (accountId: string, n: number) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const made = (await createApiKey(service.database.db, accountId, "test", `extra ${i}`, 100))!;
        return new ModelRunClient({ apiKey: made.key, baseUrl: service.base });
      }),
    );
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => error as ModelRunError,
    );

  it("when test runs of a compute model come from many test keys at once, then exactly TEST_RUNS_PER_DAY start and the rest are 429 TEST_RUN_QUOTA_EXCEEDED", async () => {
    const { accountId, testClient, client } = await service.account(100);
    const clients = [testClient, ...(await moreTestClients(accountId, 4))];
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        refusal(
          clients[i % clients.length]!.runs.create("acme/pixel/fast", { input: { prompt: `free ${i}` } }),
        ),
      ),
    );
    const refused = answers.filter((a) => a !== null);
    expect(answers.filter((a) => a === null)).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const error of refused) {
      expect(error.status).toBe(429);
      expect(error.code).toBe("TEST_RUN_QUOTA_EXCEEDED");
      expect(error.retryAfterMs).toBeGreaterThan(86_000_000);
    }
    expect(await service.database.db.run.count({ where: { accountId, mode: "test" } })).toBe(3);
    // acme/echo costs nothing and stays open; live runs are paid for and never counted.
    expect((await testClient.runs.create("acme/echo", { input: { prompt: "hi" } })).status).toBe("queued");
    expect((await client.runs.create("acme/pixel/fast", { input: { prompt: "paid" } })).status).toBe(
      "queued",
    );
    const account = await testClient.account.get();
    expect(account.test_runs).toEqual({ limit: 3, remaining: 0, resets_at: expect.any(String) });
  });

  it("when a test key reads the account, then it sees test mode's world: no tokens, no ledger, no live run id", async () => {
    const { testClient, client } = await service.account(500);
    const live = await client.runs.create("acme/pixel/fast", { input: { prompt: "live" } });
    await client.runs.wait(live.run_id);
    expect((await client.account.get()).balance).toBeLessThan(500);
    const seen = await testClient.account.get();
    expect(seen).toMatchObject({ mode: "test", balance: 0, reserved: 0, available: 0 });
    expect(seen.test_runs).toEqual({ limit: 3, remaining: 3, resets_at: null });
    expect(await testClient.account.ledger()).toEqual({ entries: [], next_cursor: null });
    const usage = await testClient.account.usage({ days: 2 });
    expect(usage.total_tokens_charged).toBe(0);
    expect(JSON.stringify(usage)).not.toContain(live.run_id);
    // The live key still sees its own world.
    expect((await client.account.ledger()).entries.some((e) => e.run_id === live.run_id)).toBe(true);
  });
});
