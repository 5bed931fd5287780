import { createReadStream, createWriteStream, writeFileSync, type Stats } from "node:fs";
import { access, mkdir, readdir, rm, stat, statfs, writeFile } from "node:fs/promises";
import { once } from "node:events";
import { dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { EXPIRED_MARKER, OUTPUT_NAME, OUTPUT_TOKEN } from "@svc/core";
import type { LocalOutputStore } from "./store.js";

/** Between an output's token and its name in its shard's directory: in neither's alphabet. */
const JOIN = "~";
/**
 * A shard's directory: the first character of the tokens' random part, 62 at most, so a fresh
 * store has made them all within its first few hundred runs (a million outputs are ~16,000 files
 * a directory, which ext4's indexed directories take in their stride).
 */
const SHARD = /^[0-9A-Za-z]$/;

/** An output's key, `<token>/<name>`, taken apart; null for any other key (inputs, weights). */
function outputKey(key: string): { token: string; name: string } | null {
  const slash = key.indexOf("/");
  const [token, name] = [key.slice(0, slash), key.slice(slash + 1)];
  return slash > 0 && OUTPUT_TOKEN.test(token) && OUTPUT_NAME.test(name) ? { token, name } : null;
}

/**
 * The largest body in memory written synchronously, where OUTPUT_DIR is on a local filesystem
 * (and while such writes stay cheap: inlineWriteGate).
 * fs/promises' writeFile is three trips to libuv's thread pool (open, write, close): each wakes a
 * pool thread, which on a busy machine takes the event loop's core, and in pool.sh those wake-ups
 * were nearly a fifth of the worker's busy time for files of a few hundred bytes. Written
 * directly, a file this small costs the page cache a copy and three system calls; larger ones
 * still use the pool.
 */
export const SYNC_WRITE_MAX_BYTES = 64 * 1024;

/**
 * statfs(2) types of filesystems on the machine's own disks or memory: ext2/3/4, XFS, Btrfs, ZFS,
 * F2FS, tmpfs and overlayfs (a container's layers). On a network volume (NFS, SMB, a FUSE mount)
 * every file is written through the thread pool: a file server that stalls then stalls one pool
 * thread, not the event loop (leases, cancels and every other run of the worker).
 */
const LOCAL_FILESYSTEMS = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x2fc12fc1, 0xf2f52010, 0x01021994, 0x794c7630,
]);

/**
 * What an inline write may cost on average (ms) before small files go through the thread pool too.
 * A file's creation costs ~20 us of system time on a healthy local disk, but a busy or degraded
 * one can take a millisecond or more (the 2-core test machines' ext4 took 0.3-1 ms in some
 * directories): written inline, that time is the event loop's, and every lease renewal, cancel
 * and handover of the worker waits behind it. Off the event loop, a slow open costs a pool thread.
 */
const INLINE_WRITE_BUDGET_MS = 0.2;
/** While writes are too slow to make inline, one in this many still is: it tells when the disk is fast again. */
const INLINE_WRITE_PROBE_EVERY = 64;

/**
 * Decides, write by write, whether a small file is written inline: yes while the recent inline
 * writes (a moving average of their system CPU) stayed within INLINE_WRITE_BUDGET_MS; else through
 * the thread pool, but for one probe in INLINE_WRITE_PROBE_EVERY, whose cost keeps the average
 * current.
 * The system CPU is the process's (Node 20 has no thread's own), so an inline write is weighed
 * only while no write runs on the thread pool (`pooled`), and a probe waits for such a moment:
 * the pool threads' system time, counted as the inline write's, kept the gate shut on a disk that
 * created files in 0.04 ms (in pool.sh, 2,942 writes of 3,000 through the pool, each costing the
 * event loop more than an inline one).
 */
export function inlineWriteGate(budgetMs = INLINE_WRITE_BUDGET_MS, probeEvery = INLINE_WRITE_PROBE_EVERY) {
  let average = 0;
  let skipped = 0;
  let inPool = 0;
  return {
    inline(): boolean {
      if (average <= budgetMs) return true;
      if (++skipped < probeEvery || inPool > 0) return false;
      skipped = 0;
      return true;
    },
    /**
     * An inline write took `ms`. One counts for at most five budgets: a single stall (a
     * checkpoint's flush) sends the next writes to the pool until a probe or two, not hundreds.
     */
    took(ms: number): void {
      if (inPool === 0) average = average * 0.8 + Math.min(ms, 5 * budgetMs) * 0.2;
    },
    /** A write through the thread pool, counted while it runs. */
    async pooled<T>(write: () => Promise<T>): Promise<T> {
      inPool++;
      try {
        return await write();
      } finally {
        inPool--;
      }
    },
  };
}

/** Whether small files are written synchronously on a filesystem of this statfs type. */
export const writesInline = (filesystemType: number | bigint) =>
  LOCAL_FILESYSTEMS.has(Number(filesystemType));

// Asked through the thread pool like any call that may reach a file server.
const onLocalDisk = (dir: string): Promise<boolean> =>
  statfs(dir).then(
    (info) => writesInline(info.type),
    () => false,
  );

const tokenFile = (dir: string, token: string, name: string) =>
  join(dir, token.slice(4, 5), `${token}${JOIN}${name}`);

/**
 * Where a key's file is written: an output `<token>/<name>` as OUTPUT_DIR/<shard>/<token>~<name>,
 * any other key as the path it names. A directory per run cost a mkdir per run, which on ext4
 * costs the worker as much as writing the file (docs/benchmarks.md); a shard's directory is made
 * once.
 */
export function localPath(dir: string, key: string): string {
  const output = outputKey(key);
  return output ? tokenFile(dir, output.token, output.name) : join(dir, key);
}

const statOf = (path: string): Promise<Stats | null> =>
  stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
    throw error;
  });

/**
 * The file a key names and its stat, or null when there is none: where localPath puts it, or, for
 * an output written before shards (OUTPUT_DIR/<token>/<name>), there.
 */
export async function localFile(dir: string, key: string): Promise<{ path: string; info: Stats } | null> {
  for (const path of new Set([localPath(dir, key), join(dir, key)])) {
    const info = await statOf(path);
    if (info?.isFile()) return { path, info };
  }
  return null;
}

/**
 * Outputs as files (localPath), served by the API. A file is written in place: its key holds
 * random parts that nobody knows until put() has resolved (the run's URLs are made from it only
 * then), so no one can ask for a file still being written; one whose writing fails is removed.
 * (Written under a dot-name and renamed, each file cost two more file-system calls on the
 * worker's busiest path: docs/benchmarks.md.)
 */
export function localStore(outputDir: string): LocalOutputStore {
  // Absolute, as the API's res.sendFile needs: OUTPUT_DIR may be relative to the working directory
  // (the default, ./var/outputs).
  const dir = resolve(outputDir);
  /** Directories made by this process: each is made once, not once per file. */
  const made = new Set<string>();
  /** Whether OUTPUT_DIR is on a local filesystem, once a directory of it exists (writesInline). */
  let inline: boolean | undefined;
  const gate = inlineWriteGate();
  const write = async (path: string, body: Readable | Uint8Array, signal?: AbortSignal) => {
    const file = body instanceof Readable ? createWriteStream(path) : undefined;
    try {
      // A body in memory is written at once (a small one on a local disk without the thread
      // pool); streams (large files) go through a pipeline, whose machinery (an abort controller
      // per call, stream state) a small file does not need.
      if (file) await gate.pooled(() => pipeline(body as Readable, file, ...(signal ? [{ signal }] : [])));
      else {
        signal?.throwIfAborted();
        if (inline && (body as Uint8Array).byteLength <= SYNC_WRITE_MAX_BYTES && gate.inline()) {
          // The kernel's time for the write (the process's system CPU across it), not the wall
          // clock's: on a busy machine the event loop is preempted as often inside a write as
          // anywhere else, and that is no reason to leave it.
          const before = process.cpuUsage();
          writeFileSync(path, body as Uint8Array);
          gate.took(process.cpuUsage(before).system / 1_000);
        } else await gate.pooled(() => writeFile(path, body as Uint8Array, signal ? { signal } : {}));
      }
    } catch (error) {
      // A stream that failed before its file was opened still opens (and creates) it: the file
      // goes once it is closed, or it would be left behind.
      if (file && !file.closed) await once(file, "close").catch(() => {});
      await rm(path, { force: true });
      throw error;
    }
  };
  return {
    kind: "local",
    dir,
    async put(key, body, signal) {
      const path = localPath(dir, key);
      const parent = dirname(path);
      if (!made.has(parent)) {
        await mkdir(parent, { recursive: true });
        made.add(parent);
        inline ??= await onLocalDisk(parent);
      }
      await write(path, body, signal).catch(async (error: NodeJS.ErrnoException) => {
        // A directory removed behind this process's back (an operator's cleanup) is made again.
        if (error.code !== "ENOENT" || body instanceof Readable) throw error;
        await mkdir(parent, { recursive: true });
        await write(path, body, signal);
      });
    },
    async read(key) {
      const found = await localFile(dir, key);
      if (!found) return null;
      return {
        status: 200,
        body: createReadStream(found.path),
        headers: {
          "Content-Length": String(found.info.size),
          "Last-Modified": found.info.mtime.toUTCString(),
        },
      };
    },
    async remove(keys) {
      const paths = keys.flatMap((key) => [localPath(dir, key), join(dir, key)]);
      await Promise.all([...new Set(paths)].map((path) => rm(path, { force: true })));
    },
    async isExpired(token) {
      const markers = [tokenFile(dir, token, EXPIRED_MARKER), join(dir, token, EXPIRED_MARKER)];
      for (const marker of markers)
        if (
          await access(marker).then(
            () => true,
            () => false,
          )
        )
          return true;
      return false;
    },
    expire: (before, limit) => expireLocal(dir, before, limit),
    close: () => {},
  };
}

/**
 * Retention: a token's files go once every one of them is older than `before`, and a marker stays
 * (its URLs answer 410). Shards' tokens are read from their files' names; outputs written before
 * shards are token directories, whose own mtime says when they were last written to.
 */
async function expireLocal(dir: string, before: Date, limit = 1_000): Promise<number> {
  let expired = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (expired >= limit) break;
    if (!entry.isDirectory()) continue;
    if (SHARD.test(entry.name)) expired += await expireShard(join(dir, entry.name), before, limit - expired);
    else if (OUTPUT_TOKEN.test(entry.name))
      expired += await expireTokenDirectory(join(dir, entry.name), before);
  }
  return expired;
}

/** A marked token was expired before (its leftovers, after a crash halfway, go now). */
async function expireShard(shard: string, before: Date, limit: number): Promise<number> {
  const tokens = new Map<string, string[]>();
  for (const file of await readdir(shard)) {
    const at = file.indexOf(JOIN);
    if (at < 0) continue;
    const token = file.slice(0, at);
    tokens.set(token, [...(tokens.get(token) ?? []), file.slice(at + 1)]);
  }
  let expired = 0;
  for (const [token, names] of tokens) {
    if (expired >= limit) break;
    const path = (name: string) => join(shard, `${token}${JOIN}${name}`);
    const marked = names.includes(EXPIRED_MARKER);
    const doomed = names.filter((n) => n !== EXPIRED_MARKER);
    if (!doomed.length) continue;
    if (!marked) {
      const times = await Promise.all(doomed.map(async (n) => (await statOf(path(n)))?.mtime ?? before));
      if (times.some((t) => t >= before)) continue;
      await writeFile(path(EXPIRED_MARKER), "");
      expired++;
    }
    await Promise.all(doomed.map((n) => rm(path(n), { force: true })));
  }
  return expired;
}

/** An output directory of before shards: its files go, a marker stays. */
async function expireTokenDirectory(path: string, before: Date): Promise<number> {
  if ((await stat(path)).mtime >= before) return 0;
  const files = await readdir(path);
  const marked = files.includes(EXPIRED_MARKER);
  if (!marked) await writeFile(join(path, EXPIRED_MARKER), "");
  const doomed = files.filter((f) => f !== EXPIRED_MARKER);
  await Promise.all(doomed.map((f) => rm(join(path, f), { force: true, recursive: true })));
  return marked ? 0 : 1;
}

/**
 * The output keys (`<token>/<name>`) that a local store's directory holds, in either layout, its
 * markers left out: what an operator (or a test) finds there.
 */
export async function localOutputKeys(dir: string): Promise<string[]> {
  const keys: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const shard = SHARD.test(entry.name);
    if (!shard && !OUTPUT_TOKEN.test(entry.name)) continue;
    for (const file of await readdir(join(dir, entry.name))) {
      const key = shard ? file.replace(JOIN, "/") : `${entry.name}/${file}`;
      if (outputKey(key)) keys.push(key);
    }
  }
  return keys;
}
