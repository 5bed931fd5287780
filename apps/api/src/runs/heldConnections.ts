// Event streams and waiting requests (Prefer: wait) hold a connection, a listener and a timer each
// for as long as they last, so what one principal can hold is capped: per API key (or console
// session), per account across every API replica (leases in Redis), and per process. A held
// connection also ends when the credential behind it does: a revoked key, a signed-out or expired
// session, a disabled user.
import { randomUUID } from "node:crypto";
import type { RedisClient } from "@svc/queue";
import { ApiError } from "@svc/core";
import type { Db } from "@svc/db";
import { activeKeyIds, standingSessionIds } from "@svc/use-cases";
import type { Logger } from "@svc/logger";

/** Who holds a connection: the account, and the key or console session it came with. */
export interface Holder {
  accountId: string;
  keyId: string | null;
  sessionId: string | null;
}

export interface HeldPlace {
  /** Aborts when the key is revoked or the session ends. */
  signal: AbortSignal;
  release(): void;
}

export interface HeldLimits {
  perPrincipal: number;
  perAccount: number;
  perProcess: number;
  /** How often held credentials are checked (revocation reaches open streams within this). */
  checkEveryMs: number;
}

export interface HeldConnections {
  /** A place for one stream or wait; throws 429 RATE_LIMITED with Retry-After past a cap. */
  hold(holder: Holder): Promise<HeldPlace>;
  /** Places held in this process. */
  count(): number;
  close(): void;
}

/** A place held in this process; `release` is set once its shared lease is taken. */
interface LocalPlace {
  holder: Holder;
  principal: string;
  stop: AbortController;
  release?: () => void;
}

const LEASE_MS = 60_000;
const RETRY_AFTER = "5";

// Both sets are trimmed of expired leases (a crashed process's), then one lease goes into each
// if neither is full. Keys share the queue prefix's hash tag, as BullMQ's do on Redis Cluster.
const TAKE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
return 0`;

const over = (what: string, cap: number) =>
  new ApiError(
    "RATE_LIMITED",
    `Too many event streams and waiting requests held by this ${what} (at most ${cap} at once); close one, or poll instead. Retry in ${RETRY_AFTER} s.`,
    undefined,
    { "Retry-After": RETRY_AFTER },
  );

/** Ends what revoked keys and ended sessions hold (one query for each kind per check). */
async function endRevoked(db: Db, places: Map<string, LocalPlace>) {
  if (!places.size) return;
  const keys = new Set<string>();
  const sessions = new Set<string>();
  for (const { holder } of places.values()) {
    if (holder.keyId) keys.add(holder.keyId);
    if (holder.sessionId) sessions.add(holder.sessionId);
  }
  const [liveKeys, liveSessions] = await Promise.all([
    keys.size ? activeKeyIds(db, [...keys]) : new Set<string>(),
    sessions.size ? standingSessionIds(db, [...sessions]) : new Set<string>(),
  ]);
  const active = new Set([...liveKeys, ...liveSessions]);
  for (const { holder, stop, release } of places.values()) {
    const credential = holder.sessionId ?? holder.keyId;
    if (credential && !active.has(credential)) {
      stop.abort();
      // Given back here too, not only when its response closes: an ended credential's places
      // never outlive it, whatever became of the request that took them.
      release?.();
    }
  }
}

export function heldConnections(deps: {
  redis: RedisClient;
  db: Db;
  prefix: string;
  limits: HeldLimits;
  logger: Logger;
}): HeldConnections {
  const { redis, limits, logger } = deps;
  const owner = randomUUID();
  const places = new Map<string, LocalPlace>();
  const setKey = (kind: string, id: string) => `${deps.prefix}:held:${kind}:${id}`;
  const principalOf = (h: Holder) => (h.keyId ? `key:${h.keyId}` : `session:${h.sessionId}`);
  const local = (pick: (p: { holder: Holder; principal: string }) => string, value: string) =>
    [...places.values()].filter((p) => pick(p) === value).length;

  /** The shared counts; while Redis cannot be asked, this process's own (the same caps). */
  async function take(id: string, holder: Holder, principal: string): Promise<void> {
    let refusal: number;
    try {
      refusal = (await redis.eval(
        TAKE,
        2,
        setKey("principal", principal),
        setKey("account", holder.accountId),
        Date.now(),
        Date.now() + LEASE_MS,
        `${owner}:${id}`,
        limits.perPrincipal,
        limits.perAccount,
        LEASE_MS * 2,
      )) as number;
    } catch (error) {
      logger.warn("held connections counted per process while Redis fails", {
        error: (error as Error).message,
      });
      // This process's places include the one being taken.
      refusal =
        local((p) => p.principal, principal) > limits.perPrincipal
          ? 1
          : local((p) => p.holder.accountId, holder.accountId) > limits.perAccount
            ? 2
            : 0;
    }
    if (refusal === 1) throw over(holder.keyId ? "API key" : "console session", limits.perPrincipal);
    if (refusal === 2) throw over("account", limits.perAccount);
  }

  function give(id: string, holder: Holder, principal: string) {
    const member = `${owner}:${id}`;
    redis
      .multi()
      .zrem(setKey("principal", principal), member)
      .zrem(setKey("account", holder.accountId), member)
      .exec()
      .catch(() => {
        // The lease expires by itself.
      });
  }

  // Leases are renewed while held, so that only a dead process's lapse.
  const renew = setInterval(() => {
    if (!places.size) return;
    const at = Date.now() + LEASE_MS;
    const batch = redis.multi();
    for (const [id, p] of places) {
      batch.zadd(setKey("principal", p.principal), "XX", at, `${owner}:${id}`);
      batch.zadd(setKey("account", p.holder.accountId), "XX", at, `${owner}:${id}`);
    }
    batch.exec().catch(() => {});
  }, LEASE_MS / 3);
  renew.unref();

  const checker = setInterval(
    () =>
      void endRevoked(deps.db, places).catch((error: unknown) =>
        logger.warn("checking held connections' credentials failed", { error: (error as Error).message }),
      ),
    limits.checkEveryMs,
  );
  checker.unref();

  return {
    async hold(holder) {
      if (places.size >= limits.perProcess) throw over("API process", limits.perProcess);
      const id = randomUUID();
      const principal = principalOf(holder);
      // Counted here before the shared count answers, so that a burst cannot pass the process cap.
      const stop = new AbortController();
      const place: LocalPlace = { holder, principal, stop };
      places.set(id, place);
      try {
        await take(id, holder, principal);
      } catch (error) {
        places.delete(id);
        throw error;
      }
      let released = false;
      place.release = () => {
        if (released) return;
        released = true;
        places.delete(id);
        give(id, holder, principal);
      };
      return { signal: stop.signal, release: place.release };
    },
    count: () => places.size,
    close() {
      clearInterval(renew);
      clearInterval(checker);
    },
  };
}
