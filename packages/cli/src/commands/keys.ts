// keys create|list|revoke.
import { BUDGET_PERIODS, presentBudget, type BudgetPeriod } from "@svc/core";
import { listAllModels, listApiKeys, type Db, type KeyLimits } from "@svc/db";
import { issueKey, revokeKey, unknownModelIds } from "@svc/use-cases";
import { ensureAccount, mode, positiveInt, required, UsageError, type Command } from "../command.js";

export const KEY_COMMANDS: Record<string, Command> = {
  "keys create": {
    usage: `keys create --account <acct_…> --mode live|test [--name <label>] [--expires-at <ISO time>]
              [--models <model id>,…] [--budget <tokens>/day|month|total] [--max-concurrent-runs <n>]
                                                  create an API key; the full key is printed once. It
                                                  answers 401 after --expires-at, runs only --models,
                                                  402 past its --budget, and runs at most
                                                  --max-concurrent-runs at once on limited models`,
    flags: ["account", "mode", "name", "expires-at", "models", "budget", "max-concurrent-runs"],
    async run({ db, by, values, settings, print }) {
      const accountId = required(values.account, "account");
      const keyMode = mode(values.mode);
      await ensureAccount(db, accountId);
      const issued = await issueKey(db, by, {
        accountId,
        mode: keyMode,
        name: values.name ?? "",
        max: settings.API_KEYS_PER_MODE_MAX,
        limits: await keyLimits(db, values),
      });
      const { record, key } = atCap(issued, accountId, keyMode, settings.API_KEYS_PER_MODE_MAX);
      print(`created ${record.mode} key ${record.id}\n${key}\nStore it now: it is not shown again.`, {
        id: record.id,
        key,
      });
    },
  },
  "keys list": {
    usage: `keys list [--account <acct_…>]                  list keys (prefix only, never the key)`,
    flags: ["account"],
    async run({ db, values, print }) {
      for (const k of await listApiKeys(db, values.account)) {
        const state = k.revokedAt
          ? `revoked ${k.revokedAt.toISOString()}`
          : k.expiresAt && k.expiresAt <= new Date()
            ? `expired ${k.expiresAt.toISOString()}`
            : `active${k.expiresAt ? ` until ${k.expiresAt.toISOString()}` : ""}`;
        const models = k.allowedModels.length ? `  models ${k.allowedModels.join(",")}` : "";
        const budget = presentBudget(k);
        const spend = budget ? `  budget ${budget.used}/${budget.tokens} per ${budget.period}` : "";
        const atOnce = k.maxConcurrentRuns ? `  max ${k.maxConcurrentRuns} at once` : "";
        print(
          `${k.id}  ${k.accountId}  ${k.mode}  ${k.prefix}  ${state}  last used ${k.lastUsedAt?.toISOString() ?? "never"}${models}${spend}${atOnce}`,
          k,
        );
      }
    },
  },
  "keys revoke": {
    usage: `keys revoke <key_…>                             revoke a key; it stops working at once`,
    async run({ db, by, args: [id], print }) {
      const revoked = await revokeKey(db, by, required(id, "key id (positional)"));
      if (!revoked) throw new UsageError(`no key ${id}`);
      print(`revoked ${revoked.id} at ${revoked.revokedAt?.toISOString()}`, revoked);
    },
  },
};

/** A key just made, or the cap's refusal in the CLI's words. */
export function atCap<T>(made: T | null, accountId: string, keyMode: string, max: number): T {
  if (!made)
    throw new UsageError(
      `account ${accountId} already has ${max} active ${keyMode} keys (API_KEYS_PER_MODE_MAX); revoke one first`,
    );
  return made;
}

/**
 * --expires-at (a future ISO time), --models (known model ids, comma-separated), --budget
 * (<tokens>/<period>) and --max-concurrent-runs as a key's limits.
 */
async function keyLimits(db: Db, values: Readonly<Record<string, string | undefined>>): Promise<KeyLimits> {
  const limits: KeyLimits = {};
  if (values.budget !== undefined) {
    const [tokens, period] = values.budget.split("/");
    if (!period || !(BUDGET_PERIODS as readonly string[]).includes(period))
      throw new UsageError(`--budget: expected <tokens>/${BUDGET_PERIODS.join("|")}, such as 500/day`);
    limits.budget = { tokens: positiveInt(tokens!, "budget"), period: period as BudgetPeriod };
  }
  if (values["max-concurrent-runs"] !== undefined)
    limits.maxConcurrentRuns = positiveInt(values["max-concurrent-runs"], "max-concurrent-runs");
  if (values["expires-at"] !== undefined) limits.expiresAt = futureTime(values["expires-at"]);
  if (values.models !== undefined) limits.allowedModels = await knownModels(db, values.models);
  return limits;
}

function futureTime(value: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(value))
    throw new UsageError("--expires-at: expected an ISO 8601 time such as 2026-12-31T23:59:59Z");
  if (at <= new Date()) throw new UsageError("--expires-at: expected a time in the future");
  return at;
}

async function knownModels(db: Db, list: string): Promise<string[]> {
  const ids = [
    ...new Set(
      list
        .split(",")
        .map((m) => m.trim())
        .filter(Boolean),
    ),
  ];
  const known = new Set((await listAllModels(db)).map((m) => m.id));
  const unknown = await unknownModelIds(ids, async (id) => known.has(id));
  if (!ids.length || unknown.length)
    throw new UsageError(
      `--models: ${unknown.length ? `no model ${unknown.join(", ")}` : "expected model ids"}`,
    );
  return ids;
}
