// The repositories' own guarantees, on a real database: the caps that hold under concurrent
// requests (an advisory lock per account and mode), ownership in every statement that changes
// something, and a ledger whose sums are the account's cached figures.
import { createTestDatabase, type TestDatabase } from "../testing/database.js";
import { createAccount, grantTokens, ledgerTotals } from "./accounts.js";
import { createApiKey, revokeAccountKey } from "./apiKeys.js";
import { createEndpoint } from "./webhooks.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

describe("repositories", () => {
  it("when ten keys are asked for at once under a cap of three, then exactly three are made", async () => {
    const account = await createAccount(database.db, "keys at once");
    const made = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createApiKey(database.db, account.id, "live", `k${i}`, 3)),
    );
    expect(made.filter(Boolean)).toHaveLength(3);
    expect(await database.db.apiKey.count({ where: { accountId: account.id, mode: "live" } })).toBe(3);
    // The cap is per mode: test keys have their own.
    expect(await createApiKey(database.db, account.id, "test", "t", 3)).not.toBeNull();
  });

  it("when endpoints are registered at once past the cap, then only the cap's worth exist", async () => {
    const account = await createAccount(database.db, "endpoints at once");
    const owner = { accountId: account.id, mode: "live" as const };
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        createEndpoint(database.db, owner, { url: `https://e${i}.example/h`, events: [], secretEnc: "x" }, 2),
      ),
    );
    expect(made.filter(Boolean)).toHaveLength(2);
  });

  it("when an account revokes a key of another account, then nothing changes", async () => {
    const mine = await createAccount(database.db, "mine");
    const theirs = await createAccount(database.db, "theirs");
    const key = (await createApiKey(database.db, theirs.id, "live", "theirs", 5))!;
    expect(await revokeAccountKey(database.db, mine.id, key.record.id)).toBeNull();
    expect(
      (await database.db.apiKey.findUniqueOrThrow({ where: { id: key.record.id } })).revokedAt,
    ).toBeNull();
    expect((await revokeAccountKey(database.db, theirs.id, key.record.id))?.revokedAt).toBeInstanceOf(Date);
  });

  it("when tokens are granted concurrently, then the ledger's sums are the account's balance", async () => {
    const account = await createAccount(database.db, "grants");
    await Promise.all(Array.from({ length: 20 }, (_, i) => grantTokens(database.db, account.id, i + 1)));
    const totals = await ledgerTotals(database.db, account.id);
    expect(totals.cached).toEqual({ balance: 210, reserved: 0 });
    expect(totals.ledger).toEqual(totals.cached);
  });
});
