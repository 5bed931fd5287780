import { findModel, type Db } from "@svc/db";

type Model = NonNullable<Awaited<ReturnType<typeof findModel>>>;

/**
 * Models as run creation sees them, cached per process for ttlMs (0: no cache). The catalogue
 * changes rarely; an edit (status, schema, price) reaches every replica within the TTL.
 */
export function modelCache(db: Db, ttlMs: number) {
  const entries = new Map<string, { model: Model | null; expiresAt: number }>();
  return async (id: string): Promise<Model | null> => {
    const now = Date.now();
    const hit = entries.get(id);
    if (hit && hit.expiresAt > now) return hit.model;
    const model = await findModel(db, id);
    if (ttlMs > 0) {
      if (entries.size > 5_000) entries.clear();
      entries.set(id, { model, expiresAt: now + ttlMs });
    }
    return model;
  };
}
