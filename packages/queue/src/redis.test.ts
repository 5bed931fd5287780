import { rootCertificates } from "node:tls";
import { Cluster, Redis } from "ioredis";
import { testCertificate } from "@svc/testkit";
import { createRedis, type RedisClient } from "./redis.js";

// Which connection the settings make, without connecting (lazyConnect); the connections themselves
// are exercised against real redis-server processes in tests/e2e/src/redisModes.test.ts.
describe("createRedis", () => {
  const made: RedisClient[] = [];
  const make = (...args: Parameters<typeof createRedis>) => {
    const redis = createRedis(args[0], args[1], { lazyConnect: true, ...args[2] });
    made.push(redis);
    return redis;
  };
  afterAll(() => made.forEach((r) => r.disconnect()));

  it("when only REDIS_URL is set, then it is one Redis with the URL's credentials, REDIS_PASSWORD replacing the URL's", () => {
    const plain = make("redis://:from-url@10.0.0.5:6380/2", "producer") as Redis;
    expect(plain).toBeInstanceOf(Redis);
    expect(plain.options).toMatchObject({ host: "10.0.0.5", port: 6380, db: 2, password: "from-url" });
    expect(plain.options).toMatchObject({ maxRetriesPerRequest: 1, enableOfflineQueue: false });
    const replaced = make(
      { REDIS_URL: "redis://:from-url@10.0.0.5:6380", REDIS_PASSWORD: "given" },
      "worker",
    ) as Redis;
    const special = make(
      { REDIS_URL: "rediss://cache:6380", REDIS_USERNAME: "svc", REDIS_PASSWORD: "p@ss:w/rd%" },
      "producer",
    ) as Redis;
    expect(special.options).toMatchObject({
      username: "svc",
      password: "p@ss:w/rd%",
      host: "cache",
      port: 6380,
    });
    expect(replaced.options).toMatchObject({
      password: "given",
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
    });
  });

  it("when sentinels are set, then it asks them for the named master with both passwords, over TLS when asked", async () => {
    const { caFile } = await testCertificate();
    const redis = make(
      {
        REDIS_URL: "redis://unused:6379",
        REDIS_SENTINELS: [{ host: "s1", port: 26379 }],
        REDIS_SENTINEL_NAME: "main",
        REDIS_PASSWORD: "data",
        REDIS_SENTINEL_PASSWORD: "watch",
        REDIS_TLS: true,
        REDIS_TLS_CA_FILE: caFile,
      },
      "worker",
    ) as Redis;
    expect(redis.options).toMatchObject({
      sentinels: [{ host: "s1", port: 26379 }],
      name: "main",
      password: "data",
      sentinelPassword: "watch",
      enableTLSForSentinelMode: true,
    });
    // The private CA is added to the system roots, not instead of them.
    const ca = (redis.options.tls as { ca: string[] }).ca;
    expect(ca).toHaveLength(rootCertificates.length + 1);
    expect(redis.options.sentinelTLS).toEqual(redis.options.tls);
  });

  it("when cluster nodes are set, then it is a Cluster whose node connections have the role's behaviour and the credentials", () => {
    const cluster = make(
      {
        REDIS_URL: "redis://unused:6379",
        REDIS_CLUSTER_NODES: [{ host: "n1", port: 7000 }],
        REDIS_USERNAME: "svc",
        REDIS_PASSWORD: "pw",
      },
      "producer",
    ) as Cluster;
    expect(cluster).toBeInstanceOf(Cluster);
    expect(cluster.options).toMatchObject({ enableOfflineQueue: false });
    expect(cluster.options.redisOptions).toMatchObject({
      username: "svc",
      password: "pw",
      maxRetriesPerRequest: 1,
    });
  });

  it("when a demoted master answers READONLY, then the connection reconnects and resends; other errors are left to the caller", () => {
    const redis = make("redis://127.0.0.1:6379", "worker") as Redis;
    const decide = redis.options.reconnectOnError!;
    expect(
      decide(Object.assign(new Error("READONLY You can't write against a read only replica."), {})),
    ).toBe(2);
    expect(decide(new Error("MOVED 1 127.0.0.1:7000"))).toBe(false);
  });
});
