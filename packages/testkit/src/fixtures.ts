import { createAccount, createApiKey, grantTokens, type Db } from "@svc/db";

/** An account with the given tokens and one live and one test key. */
export async function createAccountWithKeys(db: Db, tokens = 1000, name = "test account") {
  const account = await createAccount(db, name);
  if (tokens > 0) await grantTokens(db, account.id, tokens);
  const live = await createApiKey(db, account.id, "live", "live key");
  const test = await createApiKey(db, account.id, "test", "test key");
  return {
    account,
    liveKey: live.key,
    liveKeyId: live.record.id,
    testKey: test.key,
    testKeyId: test.record.id,
  };
}
