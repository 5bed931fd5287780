import { createWriteStream } from "node:fs";
import { access, mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { EXPIRED_MARKER, OUTPUT_TOKEN, randomBase62 } from "@svc/core";
import type { LocalOutputStore } from "./store.js";

/**
 * Outputs as files, OUTPUT_DIR/<token>/<name>, served by the API with express.static. A file is
 * written under a dot-name (which the API never serves) and renamed into place once complete.
 */
export function localStore(dir: string): LocalOutputStore {
  return {
    kind: "local",
    dir,
    async put(key, body, signal) {
      const path = join(dir, key);
      await mkdir(dirname(path), { recursive: true });
      const partial = join(dirname(path), `.${randomBase62()}.part`);
      try {
        const source = body instanceof Readable ? body : Readable.from([body]);
        await pipeline(source, createWriteStream(partial), ...(signal ? [{ signal }] : []));
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
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
