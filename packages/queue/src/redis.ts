import { readFileSync } from "node:fs";
import { rootCertificates, type ConnectionOptions } from "node:tls";
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import type { BaseConfig } from "@svc/config";

/** One Redis, a Sentinel-watched master, or a Cluster: every process reaches Redis through this. */
export type RedisClient = Redis | Cluster;

/** The settings that say which Redis and how (config's REDIS_* variables). */
export type RedisSettings = Pick<BaseConfig, "REDIS_URL"> &
  Partial<
    Pick<
      BaseConfig,
      | "REDIS_SENTINELS"
      | "REDIS_SENTINEL_NAME"
      | "REDIS_SENTINEL_PASSWORD"
      | "REDIS_CLUSTER_NODES"
      | "REDIS_USERNAME"
      | "REDIS_PASSWORD"
      | "REDIS_TLS"
      | "REDIS_TLS_CA_FILE"
      | "REDIS_TLS_CERT_FILE"
      | "REDIS_TLS_KEY_FILE"
    >
  >;

/**
 * producer: for request paths. Commands fail at once while Redis is down (no offline queue, one
 *   retry), so an API request never hangs on Redis; callers decide what a failure means.
 * worker: for BullMQ workers and subscribers. Waits and reconnects for as long as it takes
 *   (BullMQ requires maxRetriesPerRequest: null on blocking connections).
 */
export type RedisRole = "producer" | "worker";

/** Reconnection delays: 200 ms more per attempt, at most 2 s (nodes, sentinels, the cluster). */
const backoff = (attempt: number) => Math.min(attempt * 200, 2_000);

const byRole = (role: RedisRole): RedisOptions =>
  role === "producer"
    ? { maxRetriesPerRequest: 1, enableOfflineQueue: false }
    : { maxRetriesPerRequest: null, enableOfflineQueue: true, enableReadyCheck: true };

/** The TLS options of the settings, or undefined without TLS. Files are read once, here. */
function tlsOf(settings: RedisSettings, on: boolean): ConnectionOptions | undefined {
  if (!on) return undefined;
  const read = (file: string | undefined) => (file ? readFileSync(file) : undefined);
  const ca = read(settings.REDIS_TLS_CA_FILE);
  return {
    // An extra CA is added to the system roots, as for webhook receivers (not instead of them).
    ...(ca && { ca: [...rootCertificates, ca.toString()] }),
    ...(settings.REDIS_TLS_CERT_FILE && {
      cert: read(settings.REDIS_TLS_CERT_FILE),
      key: read(settings.REDIS_TLS_KEY_FILE),
    }),
  };
}

/**
 * A connection for `role` to the Redis the settings name (a URL string: one node, for tests and
 * tools). After a Sentinel failover the old master may answer READONLY for a moment: the
 * connection then reconnects (to the new master) and resends the command.
 */
export function createRedis(
  target: RedisSettings | string,
  role: RedisRole,
  extra: RedisOptions = {},
): RedisClient {
  const common: RedisOptions = {
    connectTimeout: 2_000,
    retryStrategy: backoff,
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
  };
  const settings: RedisSettings = typeof target === "string" ? { REDIS_URL: target } : target;
  const auth = {
    ...(settings.REDIS_USERNAME && { username: settings.REDIS_USERNAME }),
    ...(settings.REDIS_PASSWORD && { password: settings.REDIS_PASSWORD }),
  };
  let redis: RedisClient;
  if (settings.REDIS_CLUSTER_NODES) {
    const tls = tlsOf(settings, !!settings.REDIS_TLS);
    const options: ClusterOptions = {
      clusterRetryStrategy: backoff,
      enableOfflineQueue: role !== "producer",
      enableReadyCheck: true,
      redisOptions: { ...common, ...byRole(role), ...auth, ...(tls && { tls }), ...extra },
    };
    redis = new Cluster(settings.REDIS_CLUSTER_NODES, options);
  } else if (settings.REDIS_SENTINELS) {
    const tls = tlsOf(settings, !!settings.REDIS_TLS);
    redis = new Redis({
      ...common,
      ...byRole(role),
      ...auth,
      sentinels: settings.REDIS_SENTINELS,
      name: settings.REDIS_SENTINEL_NAME ?? "mymaster",
      ...(settings.REDIS_SENTINEL_PASSWORD && { sentinelPassword: settings.REDIS_SENTINEL_PASSWORD }),
      sentinelRetryStrategy: backoff,
      ...(tls && { tls, sentinelTLS: tls, enableTLSForSentinelMode: true }),
      ...extra,
    });
  } else {
    const tls = tlsOf(settings, settings.REDIS_URL.startsWith("rediss:"));
    // ioredis prefers the URL's credentials to its options': REDIS_USERNAME / REDIS_PASSWORD go
    // into the URL, where they replace what it says.
    const url = new URL(settings.REDIS_URL);
    if (settings.REDIS_USERNAME) url.username = encodeURIComponent(settings.REDIS_USERNAME);
    if (settings.REDIS_PASSWORD) url.password = encodeURIComponent(settings.REDIS_PASSWORD);
    redis = new Redis(url.toString(), {
      ...common,
      ...byRole(role),
      ...(tls && { tls }),
      ...extra,
    });
  }
  // Connection errors are reported through commands and readiness checks; without a listener
  // ioredis would print every reconnect attempt as an unhandled error event.
  redis.on("error", () => {});
  return redis;
}

/** Another connection to the same Redis with `role`'s behaviour (a subscriber, say). */
export function duplicateAs(redis: RedisClient, role: RedisRole): RedisClient {
  const copy =
    redis instanceof Cluster
      ? redis.duplicate([], {
          enableOfflineQueue: role !== "producer",
          redisOptions: { ...redis.options.redisOptions, ...byRole(role) },
        })
      : redis.duplicate(byRole(role));
  copy.on("error", () => {});
  return copy;
}

/** Resolves true once the connection is ready (at once if it is), false after timeoutMs. */
export function whenRedisReady(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  if (redis.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on("ready", onReady);
  });
}

/** PING with a deadline that also covers a connection still being made: true when Redis answered. */
export async function pingRedis(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  const started = Date.now();
  if (!(await whenRedisReady(redis, timeoutMs))) return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      redis.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("timeout")),
          Math.max(1, timeoutMs - (Date.now() - started)),
        );
      }),
    ]);
    return answer === "PONG";
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether Redis takes a write under the prefix, and if not, what to change. A Redis that answers
 * PING may still refuse every key of ours: a Cluster node reached as one Redis (MOVED), a replica
 * (READONLY), a user without the rights (NOPERM).
 */
export async function redisRefusal(redis: RedisClient, prefix: string): Promise<string | undefined> {
  try {
    // Keys as the queues' scripts name them: on a Cluster they must share a slot.
    await redis.eval(
      "return redis.call('SET', KEYS[1], '1', 'PX', 60000)",
      3,
      `${prefix}:probe`,
      `${prefix}:runs:probe`,
      `${prefix}:sched:probe`,
    );
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const hint = /^(MOVED|ASK|CLUSTERDOWN|CROSSSLOT)\b/.test(message)
      ? "this is a Redis Cluster: set REDIS_CLUSTER_NODES and a QUEUE_PREFIX with a hash tag, such as {svc}"
      : /^READONLY\b/.test(message)
        ? "this is a replica: point REDIS_URL at the master, or set REDIS_SENTINELS"
        : /^(NOAUTH|WRONGPASS|NOPERM)\b/.test(message)
          ? "check REDIS_USERNAME / REDIS_PASSWORD (or the URL's) and the user's ACL"
          : "see the error";
    return `${message} (${hint})`;
  }
}
