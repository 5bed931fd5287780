import { createReadStream, createWriteStream } from "node:fs";
import { access, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { EXPIRED_MARKER, OUTPUT_TOKEN } from "@svc/core";
import type { LocalOutputStore } from "./store.js";

/**
 * Outputs as files, OUTPUT_DIR/<token>/<name>, served by the API with express.static. A file is
 * written in place: its key holds random parts that nobody knows until put() has resolved (the
 * run's URLs are made from it only then), so no one can ask for a file still being written; one
 * whose writing fails is removed. (Written under a dot-name and renamed, each file cost two more
 * file-system calls on the worker's busiest path: docs/benchmarks.md.)
 */
export function localStore(dir: string): LocalOutputStore {
  return {
    kind: "local",
    dir,
    async put(key, body, signal) {
      const path = join(dir, key);
      await mkdir(dirname(path), { recursive: true });
      const file = body instanceof Readable ? createWriteStream(path) : undefined;
      try {
        // A body in memory is written at once; streams (large files) go through a pipeline, whose
        // machinery (an abort controller per call, stream state) a small file does not need.
        if (file) await pipeline(body as Readable, file, ...(signal ? [{ signal }] : []));
        else await writeFile(path, body as Uint8Array, signal ? { signal } : {});
      } catch (error) {
        // A stream that failed before its file was opened still opens (and creates) it: the file
        // goes once it is closed, or it would be left behind.
        if (file && !file.closed) await once(file, "close").catch(() => {});
        await rm(path, { force: true });
        throw error;
      }
    },
    async read(key) {
      const path = join(dir, key);
      const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
        throw error;
      });
      if (!info?.isFile()) return null;
      return {
        status: 200,
        body: createReadStream(path),
        headers: { "Content-Length": String(info.size), "Last-Modified": info.mtime.toUTCString() },
      };
    },
    async remove(keys) {
      await Promise.all(keys.map((key) => rm(join(dir, key), { force: true })));
    },
    isExpired: (token) =>
      access(join(dir, token, EXPIRED_MARKER)).then(
        () => true,
        () => false,
      ),
    expire: (before, limit) => expireLocal(dir, before, limit),
    close: () => {},
  };
}

/** A directory's files go, a marker stays; recent directories cost one stat, only old ones a listing. */
async function expireLocal(dir: string, before: Date, limit = 1_000): Promise<number> {
  let expired = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (expired >= limit) break;
    if (!entry.isDirectory() || !OUTPUT_TOKEN.test(entry.name)) continue;
    const path = join(dir, entry.name);
    if ((await stat(path)).mtime >= before) continue;
    const files = await readdir(path);
    // A marked directory was expired before (its leftovers, after a crash halfway, go now).
    if (!files.includes(EXPIRED_MARKER)) {
      await writeFile(join(path, EXPIRED_MARKER), "");
      expired++;
    }
    const doomed = files.filter((f) => f !== EXPIRED_MARKER);
    await Promise.all(doomed.map((f) => rm(join(path, f), { force: true, recursive: true })));
  }
  return expired;
}
