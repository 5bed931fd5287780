// Real redis-server processes in Cluster, Sentinel and TLS setups, started by a test on free
// ports (the machine's Redis stays untouched) and killed with it.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis, type RedisOptions } from "ioredis";
import { testCertificate } from "./httpsReceiver.js";
import { freePort, waitFor } from "./wait.js";

export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? "redis-server";
const REDIS_CLI_BIN = process.env.REDIS_CLI_BIN ?? "redis-cli";

interface ServerProcess {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
}

async function startServer(args: string[], port: number): Promise<ServerProcess> {
  const child = spawn(REDIS_SERVER_BIN, args, { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { port, child, exited };
}

/** Asks one node (with its options) and disconnects. */
async function ask<T>(port: number, options: RedisOptions, fn: (r: Redis) => Promise<T>): Promise<T | null> {
  const r = new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 0, lazyConnect: true, ...options });
  r.on("error", () => {});
  try {
    await r.connect();
    return await fn(r);
  } catch {
    return null;
  } finally {
    r.disconnect();
  }
}

async function stopAll(servers: ServerProcess[], dir: string) {
  for (const s of servers)
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.exited));
  await rm(dir, { recursive: true, force: true });
}

const plain = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"];

export interface RedisClusterHandle {
  /** host:port of every master, comma-separated (REDIS_CLUSTER_NODES). */
  nodes: string;
  ports: number[];
  stop(): Promise<void>;
}

/** A Redis Cluster of `masters` masters (no replicas), every slot assigned, state ok. */
export async function startRedisCluster(masters = 3): Promise<RedisClusterHandle> {
  const dir = await mkdtemp(join(tmpdir(), "svc-redis-cluster-"));
  // Each node also listens on its port + 10000 (the cluster bus).
  const ports = await Promise.all(Array.from({ length: masters }, () => freePort({ alsoFree: 10_000 })));
  const servers = await Promise.all(
    ports.map((port) =>
      startServer(
        [
          ...plain,
          "--port",
          String(port),
          "--dir",
          dir,
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          `nodes-${port}.conf`,
          "--cluster-node-timeout",
          "2000",
        ],
        port,
      ),
    ),
  );
  try {
    for (const port of ports)
      await waitFor(() => ask(port, {}, (r) => r.ping()), { what: `redis ${port} up` });
    await promisify(execFile)(REDIS_CLI_BIN, [
      "--cluster",
      "create",
      ...ports.map((p) => `127.0.0.1:${p}`),
      "--cluster-replicas",
      "0",
      "--cluster-yes",
    ]);
    for (const port of ports)
      await waitFor(
        () =>
          ask(port, {}, async (r) => String(await r.call("CLUSTER", "INFO")).includes("cluster_state:ok")),
        { what: `cluster state ok on ${port}` },
      );
  } catch (error) {
    await stopAll(servers, dir);
    throw error;
  }
  return {
    nodes: ports.map((p) => `127.0.0.1:${p}`).join(","),
    ports,
    stop: () => stopAll(servers, dir),
  };
}

export interface RedisSentinelHandle {
  /** host:port of every sentinel, comma-separated (REDIS_SENTINELS). */
  sentinels: string;
  name: string;
  /** The data nodes' password (REDIS_PASSWORD) and the sentinels' (REDIS_SENTINEL_PASSWORD). */
  password: string;
  sentinelPassword: string;
  /** The port of the master as the sentinels see it now. */
  masterPort(): Promise<number>;
  /** SIGKILLs the current master; resolves once the sentinels have promoted the replica, with the time that took (ms). */
  killMaster(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A master, one replica and three sentinels (quorum 2), with passwords on the data nodes and on
 * the sentinels. A master that stops answering for a second is failed over.
 */
export async function startRedisSentinel(): Promise<RedisSentinelHandle> {
  const dir = await mkdtemp(join(tmpdir(), "svc-redis-sentinel-"));
  const name = "svcmaster";
  const password = "data-secret";
  const sentinelPassword = "sentinel-secret";
  const [master, replica, ...sentinelPorts] = await Promise.all(Array.from({ length: 5 }, () => freePort()));
  // --dir: a replica keeps the master's snapshot it syncs from in its directory (else the cwd).
  const auth = ["--requirepass", password, "--masterauth", password, "--dir", dir];
  const servers: ServerProcess[] = [
    await startServer([...plain, "--port", String(master), ...auth], master!),
    await startServer(
      [...plain, "--port", String(replica), ...auth, "--replicaof", "127.0.0.1", String(master)],
      replica!,
    ),
  ];
  const sentinelAsk = <T>(port: number, fn: (r: Redis) => Promise<T>) =>
    ask(port, { password: sentinelPassword }, fn);
  try {
    for (const port of sentinelPorts) {
      const file = join(dir, `sentinel-${port}.conf`);
      await writeFile(
        file,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          `dir ${dir}`,
          `requirepass ${sentinelPassword}`,
          `sentinel monitor ${name} 127.0.0.1 ${master} 2`,
          `sentinel auth-pass ${name} ${password}`,
          `sentinel sentinel-pass ${sentinelPassword}`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 5000`,
          "",
        ].join("\n"),
      );
      servers.push(await startServer([file, "--sentinel"], port));
    }
    await waitFor(
      () =>
        ask(replica!, { password }, async (r) =>
          String(await r.info("replication")).includes("master_link_status:up"),
        ),
      { what: "the replica in sync" },
    );
    // Failover needs every sentinel to know the replica and a majority of the others.
    for (const port of sentinelPorts)
      await waitFor(
        () =>
          sentinelAsk(port, async (r) => {
            const replicas = (await r.call("SENTINEL", "REPLICAS", name)) as unknown[];
            const others = (await r.call("SENTINEL", "SENTINELS", name)) as unknown[];
            return replicas.length >= 1 && others.length >= 2;
          }),
        { what: `sentinel ${port} to know the replica and the other sentinels`, timeoutMs: 30_000 },
      );
  } catch (error) {
    await stopAll(servers, dir);
    throw error;
  }
  const masterPort = async () => {
    const addr = await sentinelAsk(sentinelPorts[0]!, (r) =>
      r.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name),
    );
    return Number((addr as string[] | null)?.[1]);
  };
  return {
    sentinels: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(","),
    name,
    password,
    sentinelPassword,
    masterPort,
    async killMaster() {
      const before = await masterPort();
      const started = Date.now();
      servers.find((s) => s.port === before)!.child.kill("SIGKILL");
      await waitFor(async () => ((await masterPort()) !== before ? true : null), {
        what: "the sentinels to promote the replica",
        timeoutMs: 30_000,
      });
      return Date.now() - started;
    },
    stop: () => stopAll(servers, dir),
  };
}

export interface RedisTlsHandle {
  /** rediss://127.0.0.1:<port> */
  url: string;
  /** The CA (the server's self-signed certificate) and a client certificate it accepts. */
  caFile: string;
  certFile: string;
  keyFile: string;
  stop(): Promise<void>;
}

/** A Redis that speaks TLS only and asks every client for a certificate (mutual TLS). */
export async function startRedisTls(): Promise<RedisTlsHandle> {
  const dir = await mkdtemp(join(tmpdir(), "svc-redis-tls-"));
  const { cert, key, caFile } = await testCertificate();
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  await writeFile(certFile, cert);
  await writeFile(keyFile, key, { mode: 0o600 });
  const port = await freePort();
  const server = await startServer(
    [
      ...plain,
      "--port",
      "0",
      "--tls-port",
      String(port),
      "--tls-cert-file",
      certFile,
      "--tls-key-file",
      keyFile,
      "--tls-ca-cert-file",
      caFile,
      "--tls-auth-clients",
      "yes",
    ],
    port,
  );
  const tls = { ca: cert, cert, key };
  try {
    await waitFor(() => ask(port, { tls }, (r) => r.ping()), { what: "redis over TLS up" });
  } catch (error) {
    await stopAll([server], dir);
    throw error;
  }
  return {
    url: `rediss://127.0.0.1:${port}`,
    caFile,
    certFile,
    keyFile,
    stop: () => stopAll([server], dir),
  };
}

export interface RedisServerHandle {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** One plain Redis of the test's own, which the test may misconfigure (ACLs, memory) at will. */
export async function startRedisServer(): Promise<RedisServerHandle> {
  const dir = await mkdtemp(join(tmpdir(), "svc-redis-"));
  const port = await freePort();
  const server = await startServer([...plain, "--port", String(port), "--dir", dir], port);
  try {
    await waitFor(() => ask(port, {}, (r) => r.ping()), { what: `redis ${port} up` });
  } catch (error) {
    await stopAll([server], dir);
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, port, stop: () => stopAll([server], dir) };
}
