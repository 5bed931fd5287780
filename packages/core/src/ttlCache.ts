/**
 * A per-process memo of values that change rarely (catalogue rows, an account's settings), each
 * kept ttlMs (0: no cache), at most 5,000 at once. A change reaches every process within the TTL.
 */
export function ttlCache<T>(load: (id: string) => Promise<T>, ttlMs: number) {
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
