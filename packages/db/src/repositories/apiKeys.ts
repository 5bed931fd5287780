import { generateApiKey, newId, type Mode } from "@svc/core";
import { findMany, findOne, sqlPool, type Db } from "../client.js";
import type { ApiKey } from "../generated/prisma/client.js";

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
) {
  const generated = generateApiKey(mode);
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`api_keys:${accountId}:${mode}`}, 0))`;
    if ((await tx.apiKey.count({ where: { accountId, mode, ...usable() } })) >= max) return null;
    const record = await tx.apiKey.create({
      data: {
        id: newId("key"),
        accountId,
        mode,
        name,
        prefix: generated.prefix,
        hash: generated.hash,
        ...(limits.expiresAt !== undefined && { expiresAt: limits.expiresAt }),
        ...(limits.allowedModels !== undefined && { allowedModels: [...limits.allowedModels] }),
      },
      select: KEY_FIELDS,
    });
    return { record, key: generated.key };
  });
}

/** What a key may do beyond its account's rights: until when, and which models. */
export interface KeyLimits {
  /** Null: never expires. */
  expiresAt?: Date | null;
  /** Empty: every model. */
  allowedModels?: readonly string[];
}

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
} as const;

/** Changes a key's expiry or models (owners); null when the account has no such key (or it is revoked). */
export async function updateAccountKey(db: Db, accountId: string, keyId: string, limits: KeyLimits) {
  const { count } = await db.apiKey.updateMany({
    where: { id: keyId, accountId, revokedAt: null },
    data: {
      ...(limits.expiresAt !== undefined && { expiresAt: limits.expiresAt }),
      ...(limits.allowedModels !== undefined && { allowedModels: [...limits.allowedModels] }),
    },
  });
  return count ? db.apiKey.findUnique({ where: { id: keyId }, select: KEY_FIELDS }) : null;
}

/** Every authenticated request asks this (behind a short cache), so it skips Prisma. */
export function findApiKeyByHash(db: Db, hash: string) {
  return findOne<
    Pick<ApiKey, "id" | "accountId" | "mode" | "revokedAt" | "expiresAt"> & { allowedModels: string[] | null }
  >(
    db,
    "api_keys_by_hash",
    "SELECT id, account_id, mode, revoked_at, expires_at, allowed_models FROM api_keys WHERE hash = $1",
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
export async function revokeApiKey(db: Db, keyId: string) {
  await db.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.apiKey.findUnique({ where: { id: keyId }, select: { id: true, revokedAt: true } });
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
    select: { id: true, allowedModels: true },
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
            COALESCE(sum(l.amount) FILTER (WHERE l.created_at >= $3), 0)::int AS today,
            sum(l.amount)::int AS this_month
     FROM ledger_entries l JOIN runs r ON r.id = l.run_id
     WHERE l.account_id = $1 AND l.kind = 'CHARGE' AND l.created_at >= $2
     GROUP BY r.api_key_id`,
    [accountId, month, day],
  );
  return new Map(rows.map((r) => [r.apiKeyId, { today: r.today, thisMonth: r.thisMonth }]));
}
