import { findAccountScheduling, findModel, type Db } from "@svc/db";

/** A per-process cache of rows that change rarely, each kept ttlMs (0: no cache). */
function ttlCache<T>(load: (id: string) => Promise<T>, ttlMs: number) {
  const entries = new Map<string, { value: T; expiresAt: number }>();
  return async (id: string): Promise<T> => {
    const now = Date.now();
    const hit = entries.get(id);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await load(id);
    if (ttlMs > 0) {
      if (entries.size > 5_000) entries.clear();
      entries.set(id, { value, expiresAt: now + ttlMs });
    }
    return value;
  };
}

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
