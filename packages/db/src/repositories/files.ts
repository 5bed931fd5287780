import { newId } from "@svc/core";
import { findMany, type Db } from "../client.js";
import { NEWEST_FIRST, pastPosition, type Position } from "./keyset.js";
import type { Owner } from "./webhooks.js";

export interface NewFile {
  apiKeyId: string | null;
  contentType: string;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  origin: "upload" | "url" | "data_url";
  createdAt: Date;
  expiresAt: Date;
}

/** A file's id, made before its bytes are stored (they are stored under it). */
export const newFileId = () => newId("file");

/** The bytes of the owner's files held at `now` (not deleted, not expired). */
export async function filesBytesHeld(db: Db, owner: Owner, now: Date): Promise<number> {
  const [row] = await db.$queryRaw<{ held: bigint }[]>`
    SELECT COALESCE(SUM(size), 0)::bigint AS held FROM files
    WHERE account_id = ${owner.accountId} AND mode::text = ${owner.mode}
      AND deleted_at IS NULL AND expires_at > ${now}`;
  return Number(row?.held ?? 0);
}

/**
 * Records a file if the owner's files then hold at most `quota` bytes; null (nothing recorded)
 * otherwise. Exact under any number of concurrent uploads and API replicas: a transaction-scoped
 * advisory lock per owner orders them, and the sum is read after it (its own statement, so its
 * own snapshot) - uploads are a cold path, and no row that runs lock is touched.
 */
export function createFileWithinQuota(db: Db, owner: Owner, id: string, quota: number, file: NewFile) {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtextextended(${`files:${owner.accountId}:${owner.mode}`}, 0))`;
    if ((await filesBytesHeld(tx as Db, owner, file.createdAt)) + file.size > quota) return null;
    return tx.file.create({ data: { id, ...owner, ...file } });
  });
}

/** The owner's file, while it is there (not deleted, not expired at `now`). */
export function findFile(db: Db, owner: Owner, id: string, now = new Date()) {
  return db.file.findFirst({ where: { id, ...owner, deletedAt: null, expiresAt: { gt: now } } });
}

/** Files by id whoever owns them (the worker's view: the run's creation checked the owner). */
export function findFilesById(db: Db, ids: readonly string[]) {
  return db.file.findMany({ where: { id: { in: [...ids] } } });
}

export function listFiles(db: Db, owner: Owner, limit: number, after?: Position, now = new Date()) {
  return db.file.findMany({
    where: { ...owner, deletedAt: null, expiresAt: { gt: now }, ...pastPosition(after) },
    orderBy: NEWEST_FIRST,
    take: limit,
  });
}

/** Marks the owner's file deleted; true when it was there. Its bytes are the caller's to remove. */
export async function deleteFile(db: Db, owner: Owner, id: string, now = new Date()): Promise<boolean> {
  const { count } = await db.file.updateMany({
    where: { id, ...owner, deletedAt: null },
    data: { deletedAt: now },
  });
  return count > 0;
}

/**
 * Up to `limit` files past their expiry whose bytes are still stored: marked deleted here, their
 * ids returned for the caller to remove from the store. Safe on every replica at once (SKIP
 * LOCKED); a crash between the two leaves bytes under a key that nothing serves any more.
 */
export async function expireFiles(
  db: Db,
  now: Date,
  limit: number,
): Promise<{ id: string; contentType: string }[]> {
  // node-postgres rather than Prisma: the worker's sweep is its only statement otherwise made by
  // Prisma, whose query engine costs the process tens of MB once loaded.
  return findMany(
    db,
    "files.expire",
    `UPDATE files SET deleted_at = $1
    WHERE id IN (
      SELECT id FROM files WHERE expires_at <= $1 AND deleted_at IS NULL
      ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED
    )
    RETURNING id, content_type`,
    [now, limit],
  );
}
