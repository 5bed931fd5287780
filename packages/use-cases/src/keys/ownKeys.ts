// An account's own API keys, as its owners manage them (the console), and the one rule a key's
// allow-list shares with the operator's CLI: it names only models that exist. Changes with no
// rule of their own are the repository's, exported here so that callers need nothing else.
export {
  createApiKey,
  findActiveKey,
  keySpend,
  listApiKeys,
  revokeAccountKey,
  setLowBalanceThreshold,
  touchApiKey,
  updateAccountKey,
} from "@svc/db";

/** The ids of a key's allow-list that name no model, each once, in the order given. */
export async function unknownModelIds(
  ids: readonly string[],
  exists: (id: string) => Promise<boolean>,
): Promise<string[]> {
  const unknown: string[] = [];
  for (const id of new Set(ids)) if (!(await exists(id))) unknown.push(id);
  return unknown;
}
