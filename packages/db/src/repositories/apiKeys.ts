import { generateApiKey, newId, type Mode } from "@svc/core";
import type { Db } from "../client.js";

/** Creates a key and returns its full value, which is never stored and cannot be shown again. */
export async function createApiKey(db: Db, accountId: string, mode: Mode, name = "") {
  const generated = generateApiKey(mode);
  const record = await db.apiKey.create({
    data: { id: newId("key"), accountId, mode, name, prefix: generated.prefix, hash: generated.hash },
  });
  return { record, key: generated.key };
}

export function findApiKeyByHash(db: Db, hash: string) {
  return db.apiKey.findUnique({
    where: { hash },
    select: { id: true, accountId: true, mode: true, revokedAt: true },
  });
}

export function listApiKeys(db: Db, accountId?: string) {
  return db.apiKey.findMany({
    where: accountId ? { accountId } : {},
    orderBy: { createdAt: "asc" },
    select: {
      id: true,
      accountId: true,
      mode: true,
      name: true,
      prefix: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
    },
  });
}

/** Revokes once; revoking again keeps the first revocation time. Null when the key is unknown. */
export async function revokeApiKey(db: Db, keyId: string) {
  await db.apiKey.updateMany({ where: { id: keyId, revokedAt: null }, data: { revokedAt: new Date() } });
  return db.apiKey.findUnique({ where: { id: keyId }, select: { id: true, revokedAt: true } });
}

export function touchApiKey(db: Db, keyId: string, at: Date) {
  return db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: at } });
}
