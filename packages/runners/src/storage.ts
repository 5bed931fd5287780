import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBase62 } from "@svc/core";

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
