import type { Readable } from "node:stream";
import { outputKeysIn, outputUrl, randomBase62, replaceStrings, runOutputToken } from "@svc/core";
import type { OutputStore } from "./store.js";

/** Where one execution of one run puts its files. */
export interface RunOutputs {
  /**
   * Stores one output file (its type follows from the name's extension), streaming when given a
   * stream, and returns the absolute URL it is known by.
   */
  save(name: string, body: Uint8Array | Readable, signal?: AbortSignal): Promise<string>;
  /**
   * Once the execution is over: deletes every file it saved that `kept` does not name (any value
   * holding output URLs: the outputs shown while it ran, the output of a settlement it won), after
   * the saves under way have ended; a later save is refused. Returns how many files went.
   */
  discardExcept(kept: unknown): Promise<number>;
}

/**
 * One execution's outputs, under a token minted for its run (core's runOutputToken), so that the
 * run's own files can be told from other URLs its output names. null: a file whose run is not
 * known (a Cog server that uploads without X-Prediction-ID), which no run counts as its own.
 */
export type OutputStorage = (runId: string | null) => RunOutputs;

/**
 * Each execution writes under its own token and each file under a name with a random part of its
 * own (128 bits each), so no URL can be derived from another: a client shown one output cannot
 * fetch another that was never shown (a file made after a cancel, whose unit was not charged). A
 * re-executed run never overwrites files that a client may already hold.
 * The URL stored in the run is always the API's (PUBLIC_BASE_URL/files/<token>/<name>): it stays
 * valid whatever OUTPUT_URLS says, and signed URLs are made from it at each read.
 */
export function runOutputs(store: OutputStore, publicBaseUrl: string, secretsKey: Buffer): OutputStorage {
  return (runId) => {
    const token = runId ? runOutputToken(secretsKey, runId) : `out_${randomBase62()}`;
    const saved = new Map<string, string>();
    const pending = new Set<Promise<unknown>>();
    let over = false;
    return {
      async save(name, body, signal) {
        if (over) throw new Error("the run's execution is over; its outputs are no longer saved");
        const key = `${token}/${randomBase62()}-${name}`;
        const url = outputUrl(publicBaseUrl, key);
        saved.set(url, key);
        const put = store.put(key, body, signal);
        pending.add(put);
        try {
          await put;
        } finally {
          pending.delete(put);
        }
        return url;
      },
      async discardExcept(kept) {
        over = true;
        await Promise.allSettled(pending);
        const keep = outputKeysIn(kept, publicBaseUrl);
        const doomed = [...saved].filter(([url]) => !keep.has(url)).map(([, key]) => key);
        if (doomed.length) await store.remove(doomed);
        return doomed.length;
      },
    };
  };
}

/** What clients are shown of output URLs. */
export interface OutputUrls {
  /** True when URLs change at each read (signed). */
  readonly signed: boolean;
  /**
   * `value` (a run's view, a webhook payload) with each of the service's output URLs in it, at any
   * depth, as clients should get them now.
   */
  resolve<T>(value: T): Promise<T>;
}

export interface OutputUrlSettings {
  mode: "proxied" | "signed";
  ttlSeconds: number;
  publicBaseUrl: string;
}

/**
 * Proxied: the stored URLs as they are. Signed: each of the service's output URLs replaced with a
 * presigned GET URL of the object, valid for ttlSeconds from this read.
 */
export function outputUrls(store: OutputStore, s: OutputUrlSettings): OutputUrls {
  if (s.mode === "proxied") return { signed: false, resolve: async (value) => value };
  if (store.kind !== "s3") throw new Error("signed output URLs need an S3 store");
  return {
    signed: true,
    async resolve(value) {
      const keys = outputKeysIn(value, s.publicBaseUrl);
      if (!keys.size) return value;
      const signed = await Promise.all(
        [...keys].map(async ([url, key]) => [url, await store.signedUrl(key, s.ttlSeconds)] as const),
      );
      return replaceStrings(value, new Map(signed));
    },
  };
}
