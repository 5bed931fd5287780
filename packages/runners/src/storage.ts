import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { EXPIRED_MARKER, OUTPUT_TOKEN, randomBase62 } from "@svc/core";

/** Where one execution of one run puts its files. */
export interface RunOutputs {
  /** Stores one output file and returns the absolute URL clients fetch it from. */
  save(name: string, bytes: Uint8Array): Promise<string>;
}

export type OutputStorage = () => RunOutputs;

/**
 * Files under OUTPUT_DIR/<token>/<name>, served by the API at PUBLIC_BASE_URL/files/<token>/<name>.
 * The token is 128 random bits per execution, so URLs are unguessable and a re-executed run never
 * overwrites files that a client may already hold.
 */
export function localStorage(dir: string, publicBaseUrl: string): OutputStorage {
  const base = publicBaseUrl.replace(/\/$/, "");
  return () => {
    const token = `out_${randomBase62()}`;
    let created: Promise<unknown> | undefined;
    return {
      async save(name, bytes) {
        await (created ??= mkdir(join(dir, token), { recursive: true }));
        await writeFile(join(dir, token, name), bytes);
        return `${base}/files/${token}/${name}`;
      },
    };
  };
}

/**
 * Retention for local outputs: the files of every output directory last written before `before`
 * are deleted, at most `limit` directories per call. The directory stays, holding only a marker,
 * so that the API can answer 410 Gone for its URLs rather than a 404 that looks like a typo.
 * Safe on every worker replica at once: deleting what is already gone is a no-op.
 */
export async function expireLocalOutputs(dir: string, before: Date, limit = 1_000): Promise<number> {
  let expired = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (expired >= limit) break;
    if (!entry.isDirectory() || !OUTPUT_TOKEN.test(entry.name)) continue;
    const path = join(dir, entry.name);
    // Recent directories cost one stat; only old ones are listed.
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
