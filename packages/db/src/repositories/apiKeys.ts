import {
  budgetReachedTemplate,
  generateApiKey,
  MAX_TOKENS,
  newId,
  type BudgetReached,
  type KeyBudget,
  type Mode,
} from "@svc/core";
import { findMany, findOne, sqlPool, type Db } from "../client.js";
import type { ApiKey } from "../generated/prisma/client.js";

/** Takes the lock under which an account's keys of one mode are counted (until the transaction ends). */
async function lockKeyCount(tx: Tx, accountId: string, mode: Mode): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`api_keys:${accountId}:${mode}`}, 0))`;
}

/** True when the account already holds `max` usable keys of the mode (call under lockKeyCount). */
async function atKeyCap(tx: Tx, accountId: string, mode: Mode, max: number): Promise<boolean> {
  return (await tx.apiKey.count({ where: { accountId, mode, ...usable() } })) >= max;
}

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** A key as its creation returns it (never its secret). */
type KeyRecord = { [K in keyof typeof KEY_FIELDS]: ApiKey[K] };

/**
 * Creates a key and returns its full value, which is never stored and cannot be shown again; null
 * when the account already holds `max` active keys of the mode (counted under a lock per account
 * and mode, so concurrent creations never pass the cap).
 */
export async function createApiKey(
  db: Db,
  accountId: string,
  mode: Mode,
  name: string,
  max: number,
  limits: KeyLimits = {},
  /** More of the same transaction once the key is made (an operator's audit entry). */
  andThen?: (tx: Tx, record: KeyRecord) => Promise<unknown>,
) {
  const generated = generateApiKey(mode);
  return db.$transaction(async (tx) => {
    await lockKeyCount(tx, accountId, mode);
    if (await atKeyCap(tx, accountId, mode, max)) return null;
    const id = newId("key");
    await tx.apiKey.create({
      data: {
        id,
        accountId,
        mode,
        name,
        prefix: generated.prefix,
        hash: generated.hash,
        ...plainLimits(limits),
      },
    });
    if (limits.budget) await tx.$executeRawUnsafe(SET_BUDGET, id, limits.budget.tokens, limits.budget.period);
    const record = await tx.apiKey.findUniqueOrThrow({ where: { id }, select: KEY_FIELDS });
    await andThen?.(tx, record);
    return { record, key: generated.key };
  });
}

/** What a key may do beyond its account's rights: until when, which models, how much, how many at once. */
export interface KeyLimits {
  /** Null: never expires. */
  expiresAt?: Date | null;
  /** Empty: every model. */
  allowedModels?: readonly string[];
  /** Null: no budget. */
  budget?: KeyBudget | null;
  /** Runs executing at once on limited pools; null: only the account's limit applies. */
  maxConcurrentRuns?: number | null;
}

/** The limits Prisma writes as they are (a budget needs its counter computed: SET_BUDGET). */
const plainLimits = (limits: KeyLimits) => ({
  ...(limits.expiresAt !== undefined && { expiresAt: limits.expiresAt }),
  ...(limits.allowedModels !== undefined && { allowedModels: [...limits.allowedModels] }),
  ...(limits.maxConcurrentRuns !== undefined && { maxConcurrentRuns: limits.maxConcurrentRuns }),
});

// Sets (or removes, with nulls) a key's budget, its counter recomputed from the key's live runs of
// the current period (reserved or charged), and key.budget_reached armed again for the new size.
// A run committed while this waits for the key's row may be missed by the count: a budget change
// counts the runs committed when it is made.
const SET_BUDGET = `
UPDATE api_keys k SET budget_tokens = $2::int, budget_period = $3::"BudgetPeriod", budget_alerted_period = NULL,
  budget_period_start = CASE WHEN $2::int IS NOT NULL
    THEN svc_period_start($3::"BudgetPeriod", now()::timestamptz(3), k.created_at) END,
  budget_used = CASE WHEN $2::int IS NULL THEN 0 ELSE COALESCE((
    SELECT LEAST(COALESCE(sum(r.reserved_tokens + COALESCE(r.tokens_charged, 0)), 0), ${MAX_TOKENS})::int FROM runs r
    WHERE r.account_id = k.account_id AND r.mode = 'live' AND r.api_key_id = k.id
      AND r.created_at >= svc_period_start($3::"BudgetPeriod", now()::timestamptz(3), k.created_at)), 0) END
WHERE k.id = $1`;

/** Neither revoked nor expired. */
const usable = () => ({ revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] });

const KEY_FIELDS = {
  id: true,
  accountId: true,
  mode: true,
  name: true,
  prefix: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
  expiresAt: true,
  allowedModels: true,
  budgetTokens: true,
  budgetPeriod: true,
  budgetUsed: true,
  budgetPeriodStart: true,
  maxConcurrentRuns: true,
} as const;

/**
 * Changes a key's limits (owners); null when the account has no such key (or it is revoked), and
 * "at_cap" when the change would make an expired key usable again while the account already holds
 * `max` usable keys of its mode: that is a new key as far as the cap goes, counted under the same
 * lock as creations.
 */
export async function updateAccountKey(
  db: Db,
  accountId: string,
  keyId: string,
  limits: KeyLimits,
  max: number,
) {
  return db.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({
      where: { id: keyId, accountId, revokedAt: null },
      select: { mode: true, expiresAt: true },
    });
    if (!key) return null;
    const now = new Date();
    const revived =
      limits.expiresAt !== undefined &&
      key.expiresAt !== null &&
      key.expiresAt <= now &&
      (limits.expiresAt === null || limits.expiresAt > now);
    if (revived) {
      await lockKeyCount(tx, accountId, key.mode);
      if (await atKeyCap(tx, accountId, key.mode, max)) return "at_cap" as const;
    }
    const { count } = await tx.apiKey.updateMany({
      where: { id: keyId, accountId, revokedAt: null },
      data: plainLimits(limits),
    });
    if (!count) return null;
    if (limits.budget !== undefined)
      await tx.$executeRawUnsafe(
        SET_BUDGET,
        keyId,
        limits.budget?.tokens ?? null,
        limits.budget?.period ?? null,
      );
    return tx.apiKey.findUnique({ where: { id: keyId }, select: KEY_FIELDS });
  });
}

/** Every authenticated request asks this (behind a short cache), so it skips Prisma. */
export function findApiKeyByHash(db: Db, hash: string) {
  return findOne<
    Pick<ApiKey, "id" | "accountId" | "mode" | "revokedAt" | "expiresAt" | "maxConcurrentRuns"> & {
      allowedModels: string[] | null;
    }
  >(
    db,
    "api_keys_by_hash",
    "SELECT id, account_id, mode, revoked_at, expires_at, allowed_models, max_concurrent_runs FROM api_keys WHERE hash = $1",
    [hash],
  );
}

export function listApiKeys(db: Db, accountId?: string) {
  return db.apiKey.findMany({
    where: accountId ? { accountId } : {},
    orderBy: { createdAt: "asc" },
    select: KEY_FIELDS,
  });
}

/** Revokes once; revoking again keeps the first revocation time. Null when the key is unknown. */
/**
 * Revokes a key (at once; the auth cache forgets it within AUTH_CACHE_TTL_MS); null when there is
 * no such key. `andThen` runs in the same transaction when this call revoked it.
 */
export async function revokeApiKey(
  db: Db,
  keyId: string,
  andThen?: (tx: Tx, key: { id: string; accountId: string; mode: Mode; name: string }) => Promise<unknown>,
) {
  return db.$transaction(async (tx) => {
    const { count } = await tx.apiKey.updateMany({
      where: { id: keyId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    const key = await tx.apiKey.findUnique({
      where: { id: keyId },
      select: { id: true, accountId: true, mode: true, name: true, revokedAt: true },
    });
    if (key && count) await andThen?.(tx, key);
    return key && { id: key.id, revokedAt: key.revokedAt };
  });
}

export async function touchApiKey(db: Db, keyId: string, at: Date): Promise<void> {
  await sqlPool(db).query({
    name: "api_keys_touch",
    text: "UPDATE api_keys SET last_used_at = $2 WHERE id = $1",
    values: [keyId, at],
  });
}

/** Revokes the account's active keys with these names. */
export async function revokeKeysNamed(db: Db, accountId: string, names: readonly string[]) {
  await db.apiKey.updateMany({
    where: { accountId, name: { in: [...names] }, revokedAt: null },
    data: { revokedAt: new Date() },
  });
}

/** Revokes one of the account's keys (see revokeApiKey); null when the account has no such key. */
export async function revokeAccountKey(db: Db, accountId: string, keyId: string) {
  await db.apiKey.updateMany({
    where: { id: keyId, accountId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return db.apiKey.findFirst({ where: { id: keyId, accountId }, select: { id: true, revokedAt: true } });
}

/** An active (neither revoked nor expired) key of the account in this mode, or null. */
export function findActiveKey(db: Db, accountId: string, mode: Mode, keyId: string) {
  return db.apiKey.findFirst({
    where: { id: keyId, accountId, mode, ...usable() },
    select: { id: true, allowedModels: true, maxConcurrentRuns: true },
  });
}

/** Which of these keys are still active (neither revoked nor expired): one statement for a whole set. */
export async function activeKeyIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const rows = await findMany<{ id: string }>(
    db,
    "api_keys_active",
    "SELECT id FROM api_keys WHERE id = ANY($1) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())",
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** Tokens charged to runs of a key, since the start of the UTC day and of the UTC month. */
export interface KeySpend {
  today: number;
  thisMonth: number;
}

/**
 * Each of the account's keys' spend, from the ledger's CHARGE entries of their runs (one
 * statement, the month's entries of one account by the ledger's account/time index).
 */
export async function keySpend(db: Db, accountId: string, now = new Date()): Promise<Map<string, KeySpend>> {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const rows = await findMany<{ apiKeyId: string; today: number; thisMonth: number }>(
    db,
    "api_keys_spend",
    `SELECT r.api_key_id,
            COALESCE(sum(l.amount) FILTER (WHERE l.created_at >= $3), 0)::float8 AS today,
            sum(l.amount)::float8 AS this_month
     FROM ledger_entries l JOIN runs r ON r.id = l.run_id
     WHERE l.account_id = $1 AND l.kind = 'CHARGE' AND l.created_at >= $2
     GROUP BY r.api_key_id`,
    [accountId, month, day],
  );
  return new Map(rows.map((r) => [r.apiKeyId, { today: r.today, thisMonth: r.thisMonth }]));
}

const BUDGET_REACHED = `
WITH k AS (
  UPDATE api_keys SET budget_alerted_period = $2
  WHERE id = $1 AND budget_tokens IS NOT NULL AND budget_alerted_period IS DISTINCT FROM $2
  RETURNING id, account_id, name
)
INSERT INTO deliveries (id, account_id, mode, endpoint_id, url, event, body, created_at)
SELECT svc_random_id('whd'), k.account_id, 'live', e.id, e.url, 'key.budget_reached',
       replace(replace($3, $4, to_json(e.id)::text), $5, to_json(k.name)::text), $6
FROM k JOIN webhook_endpoints e ON e.account_id = k.account_id AND e.mode = 'live' AND e.status = 'active'
                               AND 'key.budget_reached' = ANY(e.events)
RETURNING id`;

/**
 * Records key.budget_reached for the key's budget period that starts at `periodStart`, once per
 * period whatever the number of refusals or processes (the key's row says which period was
 * reported): the deliveries to enqueue, none when it was reported already.
 */
export async function recordBudgetReached(
  db: Db,
  keyId: string,
  periodStart: Date,
  reached: BudgetReached,
): Promise<string[]> {
  const template = budgetReachedTemplate(reached);
  const rows = await findMany<{ id: string }>(db, "api_keys_budget_reached", BUDGET_REACHED, [
    keyId,
    periodStart,
    template.body,
    template.placeholders.webhookId,
    template.placeholders.keyName,
    reached.at,
  ]);
  return rows.map((r) => r.id);
}

/** A key's own limits and budget counter, as GET /account shows them to the key's holder. */
export function findKeyLimits(db: Db, keyId: string) {
  return db.apiKey.findUnique({ where: { id: keyId }, select: KEY_FIELDS });
}
