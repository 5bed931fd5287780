// Redis stream ids ("<ms>-<seq>"): a run's events' SSE ids, which Last-Event-ID resumes from.

/** Stream ids compare by their time, then their sequence number. */
export function streamIdAfter(a: string, b: string): boolean {
  const [am, as] = a.split("-").map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split("-").map(BigInt) as [bigint, bigint];
  return am > bm || (am === bm && as > bs);
}

export const isStreamId = (id: string) => /^\d{1,20}-\d{1,20}$/.test(id);
