// Personal weights (issue #60): an account's safetensors files, kept until deleted.
import { newId } from "@svc/core";
import type { Db } from "../client.js";
import type { Prisma } from "../generated/prisma/client.js";
import { NEWEST_FIRST, pastPosition, type Position } from "./keyset.js";
import type { Owner } from "./webhooks.js";

export interface NewWeights {
  apiKeyId: string | null;
  name: string;
  size: number;
  sha256: string;
  tensorCount: number;
  rank: number | null;
  layers: string[];
  tensors: { name: string; dtype: string; shape: number[] }[];
  baseHints: string[];
  origin: "upload" | "url";
}

/** A weights' id, made before its bytes are stored (they are stored under it). */
export const newWeightsId = () => newId("wts");

/**
 * Records weights if the owner then holds at most `max` of them; null (nothing recorded)
 * otherwise. Exact under concurrent uploads: a transaction-scoped advisory lock per owner.
 */
export function createWeightsWithinCap(db: Db, owner: Owner, id: string, max: number, weights: NewWeights) {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtextextended(${`weights:${owner.accountId}:${owner.mode}`}, 0))`;
    if ((await tx.weights.count({ where: { ...owner, deletedAt: null } })) >= max) return null;
    return tx.weights.create({ data: { id, ...owner, ...weights } });
  });
}

/** What an owner may name: their own weights (of the mode), and those an operator published. */
const visibleTo = (owner: Owner) => ({ OR: [{ ...owner }, { publishedAt: { not: null } }] });

/** Weights the owner may name (theirs or published), while they are there. */
export function findWeights(db: Db, owner: Owner, id: string) {
  return db.weights.findFirst({ where: { id, deletedAt: null, ...visibleTo(owner) } });
}

/** Weights of these bytes the owner may name (theirs first, then published), while they are there. */
export function findVisibleWeightsBySha(db: Db, owner: Owner, sha256: string) {
  return db.weights.findFirst({
    where: { sha256, deletedAt: null, ...visibleTo(owner) },
    orderBy: { publishedAt: { sort: "desc", nulls: "first" } },
  });
}

/** The owner's weights and the published ones, newest first. */
export function listWeights(db: Db, owner: Owner, limit: number, after?: Position) {
  return db.weights.findMany({
    where: { deletedAt: null, ...visibleTo(owner), ...pastPosition(after) },
    orderBy: NEWEST_FIRST,
    take: limit,
  });
}

/** Marks the owner's weights deleted; the row as it was, or null when it was not theirs or not there. */
export async function deleteWeights(db: Db, owner: Owner, id: string) {
  const found = await db.weights.findFirst({ where: { id, ...owner, deletedAt: null } });
  if (!found) return null;
  const { count } = await db.weights.updateMany({
    where: { id, ...owner, deletedAt: null },
    data: { deletedAt: new Date() },
  });
  return count ? found : null;
}

/** Names the owner's weights anew (a form's `name`, read after its file). */
export function renameWeights(db: Db, owner: Owner, id: string, name: string) {
  return db.weights.update({ where: { id, ...owner }, data: { name } });
}

/** Weights still there that hold these bytes (any of them serves a URL named by the bytes). */
export function findWeightsBySha(db: Db, sha256: string) {
  return db.weights.findFirst({ where: { sha256, deletedAt: null }, orderBy: { createdAt: "asc" } });
}

/**
 * Publishes weights for every account, or takes them back (an operator's change): the row before
 * and after, or null when there are no such weights.
 */
export async function setWeightsPublished(tx: Prisma.TransactionClient, id: string, published: boolean) {
  const before = await tx.weights.findFirst({ where: { id, deletedAt: null } });
  if (!before) return null;
  const after = await tx.weights.update({
    where: { id },
    data: { publishedAt: published ? (before.publishedAt ?? new Date()) : null },
  });
  return { before, after };
}

/** Every account's weights for an operator: one account's, or the published ones. */
export function listAllWeights(db: Db, filter: { accountId?: string; published?: boolean }, limit = 500) {
  return db.weights.findMany({
    where: {
      deletedAt: null,
      ...(filter.accountId && { accountId: filter.accountId }),
      ...(filter.published && { publishedAt: { not: null } }),
    },
    orderBy: NEWEST_FIRST,
    take: limit,
  });
}

/** Weights by id whoever owns them (the worker's view: the run's creation checked the owner). */
export function findWeightsById(db: Db, ids: readonly string[]) {
  return db.weights.findMany({ where: { id: { in: [...ids] } } });
}
