// The stride policy behind the scheduler's seam: its Lua picks which waiting account starts the
// next run (policy.lua), and its place reads (place.lua, ring.lua) feed core's runsBefore, the
// same order computed for a run's estimate. A second policy fills the same SchedulingPolicy.
import { runsBefore, STRIDE, ttlCache, type WaitingAccount } from "@svc/core";
import type { RedisClient } from "../../redis.js";
import { luaFile, withKeys } from "../lua.js";
import type { SchedulingPolicy } from "../policy.js";

const TURNS = luaFile("./stride/turns.lua");
const PLACE = withKeys(TURNS, luaFile("./stride/place.lua"));
const RING = withKeys(TURNS, luaFile("./stride/ring.lua"));
const POLICY = `local STRIDE = ${STRIDE}\n${luaFile("./stride/policy.lua")}`;

/** Waiting accounts read in one script (a place's); larger rings come in pieces of RING_PIECE. */
export const PLACE_RING_INLINE = 256;
const RING_PIECE = 500;
/** How stale the other accounts' turns in a place may be once the ring is too large to read at once. */
export const RING_SNAPSHOT_MS = 1_000;

type Reads = RedisClient & {
  svcSchedPlace(...args: (string | number)[]): Promise<(string | number)[]>;
  svcSchedRing(...args: (string | number)[]): Promise<(string | number)[]>;
};

/** (account, pass, weight, waiting) entries of a script's answer, from `from` on. */
const entries = (flat: (string | number)[], from: number): WaitingAccount[] => {
  const out: WaitingAccount[] = [];
  for (let i = from; i + 3 < flat.length; i += 4)
    out.push({
      accountId: String(flat[i]),
      pass: Number(flat[i + 1]),
      weight: Number(flat[i + 2]),
      waiting: Number(flat[i + 3]),
    });
  return out;
};

export function stridePolicy(redis: RedisClient, root: string) {
  if (!("svcSchedPlace" in redis)) {
    redis.defineCommand("svcSchedPlace", { numberOfKeys: 1, lua: PLACE });
    redis.defineCommand("svcSchedRing", { numberOfKeys: 1, lua: RING });
  }
  const r = redis as Reads;
  /** Every waiting account's turn, read in pieces (an account that moved meanwhile counts once). */
  const ringSnapshot = ttlCache(async (pool: string) => {
    const seen = new Map<string, WaitingAccount>();
    for (let first = 0; ; first += RING_PIECE) {
      const piece = entries(await r.svcSchedRing(root, root, pool, first, RING_PIECE), 0);
      for (const a of piece) if (!seen.has(a.accountId)) seen.set(a.accountId, a);
      if (piece.length < RING_PIECE) return [...seen.values()];
    }
  }, RING_SNAPSHOT_MS);
  /**
   * Where a waiting run stands: its account's turn, its index among the account's waiting runs,
   * and the waiting accounts' turns. With more than PLACE_RING_INLINE accounts waiting, the others'
   * turns come from a snapshot of the pool's ring at most RING_SNAPSHOT_MS old, shared by this
   * process's reads. Null when the run is not waiting.
   */
  async function place(
    pool: string,
    runId: string,
  ): Promise<{ own: WaitingAccount; index: number; accounts: WaitingAccount[] } | null> {
    const flat = await r.svcSchedPlace(root, root, pool, runId, PLACE_RING_INLINE);
    if (!flat.length) return null;
    const listed = entries(flat, 3);
    const own = listed.find((a) => a.accountId === String(flat[0]));
    if (!own) return null;
    const accounts =
      Number(flat[2]) === 1
        ? listed
        : [...(await ringSnapshot(pool)).filter((a) => a.accountId !== own.accountId), own];
    return { own, index: Number(flat[1]), accounts };
  }
  return {
    lua: POLICY,
    place,
    async runsBefore(pool: string, runId: string): Promise<number | null> {
      const at = await place(pool, runId);
      return at && runsBefore(at.own, at.index, at.accounts);
    },
  } satisfies SchedulingPolicy & { place: typeof place };
}
