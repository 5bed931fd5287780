/**
 * A per-process memo of values that change rarely (catalogue rows, an account's settings, API
 * keys), each kept for its TTL (0: not kept), at most `max` at once (past it the memo starts
 * over). A change reaches every process within the TTL. Callers that miss the same id while its
 * load is under way share that load: a cold process or an expired entry under load costs one
 * query, not one per request that arrived meanwhile. A failed load is not kept.
 */
export function ttlCache<T>(
  load: (id: string) => Promise<T>,
  ttlMs: number | ((value: T) => number),
  max = 5_000,
) {
  const entries = new Map<string, { value: T; expiresAt: number }>();
  const loading = new Map<string, Promise<T>>();
  const ttlOf = typeof ttlMs === "number" ? () => ttlMs : ttlMs;
  return (id: string): Promise<T> => {
    const hit = entries.get(id);
    if (hit && hit.expiresAt > Date.now()) return Promise.resolve(hit.value);
    const pending = loading.get(id);
    if (pending) return pending;
    const loaded = load(id).then(
      (value) => {
        loading.delete(id);
        const ttl = ttlOf(value);
        if (ttl > 0) {
          if (entries.size >= max) entries.clear();
          entries.set(id, { value, expiresAt: Date.now() + ttl });
        }
        return value;
      },
      (error: unknown) => {
        loading.delete(id);
        throw error;
      },
    );
    loading.set(id, loaded);
    return loaded;
  };
}
