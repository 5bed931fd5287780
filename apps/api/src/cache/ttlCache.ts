import { ttlCache } from "@svc/core";
import type { Db } from "@svc/db";
import { findAccountScheduling, findModel } from "@svc/use-cases";

export type Model = NonNullable<Awaited<ReturnType<typeof findModel>>>;

/**
 * Models as run creation and queue places see them, cached per process for ttlMs. The catalogue
 * changes rarely; an edit (status, schema, price, servers) reaches every replica within the TTL.
 */
export const modelCache = (db: Db, ttlMs: number) => ttlCache((id) => findModel(db, id), ttlMs);

/** An account's weight and concurrency limit for its new runs; an admin's change lands within ttlMs. */
export const accountSchedulingCache = (db: Db, ttlMs: number) =>
  ttlCache(
    async (id) => (await findAccountScheduling(db, id)) ?? { weight: 1, maxConcurrentRuns: null },
    ttlMs,
  );
