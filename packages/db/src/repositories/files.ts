import { newId } from "@svc/core";
import type { Db } from "../client.js";
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

export function createFile(db: Db, owner: Owner, id: string, file: NewFile) {
  return db.file.create({ data: { id, ...owner, ...file } });
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
  return db.$queryRaw<{ id: string; contentType: string }[]>`
    UPDATE files SET deleted_at = ${now}
    WHERE id IN (
      SELECT id FROM files WHERE expires_at <= ${now} AND deleted_at IS NULL
      ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    )
    RETURNING id, content_type AS "contentType"`;
}
