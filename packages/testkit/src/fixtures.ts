import { createAccount, createApiKey, grantTokens, type Db } from "@svc/db";

/** Fixtures make their keys past any cap: tests of the cap make theirs through the service. */
const NO_KEY_CAP = 1_000_000;

/** An account with the given tokens and one live and one test key. */
export async function createAccountWithKeys(db: Db, tokens = 1000, name = "test account") {
  const account = await createAccount(db, name);
  if (tokens > 0) await grantTokens(db, account.id, tokens);
  const live = (await createApiKey(db, account.id, "live", "live key", NO_KEY_CAP))!;
  const test = (await createApiKey(db, account.id, "test", "test key", NO_KEY_CAP))!;
  return {
    account,
    liveKey: live.key,
    liveKeyId: live.record.id,
    testKey: test.key,
    testKeyId: test.record.id,
  };
}
