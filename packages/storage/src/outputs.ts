import type { Readable } from "node:stream";
import { outputKeysIn, outputUrl, randomBase62, replaceStrings } from "@svc/core";
import type { OutputStore } from "./store.js";

/** Where one execution of one run puts its files. */
export interface RunOutputs {
  /**
   * Stores one output file (its type follows from the name's extension), streaming when given a
   * stream, and returns the absolute URL it is known by.
   */
  save(name: string, body: Uint8Array | Readable, signal?: AbortSignal): Promise<string>;
}

export type OutputStorage = () => RunOutputs;

/**
 * Each execution writes under its own token (128 random bits, "out_" + 22 base62 characters), so
 * URLs are unguessable and a re-executed run never overwrites files that a client may already hold.
 * The URL stored in the run is always the API's (PUBLIC_BASE_URL/files/<token>/<name>): it stays
 * valid whatever OUTPUT_URLS says, and signed URLs are made from it at each read.
 */
export function runOutputs(store: OutputStore, publicBaseUrl: string): OutputStorage {
  return () => {
    const token = `out_${randomBase62()}`;
    return {
      async save(name, body, signal) {
        const key = `${token}/${name}`;
        await store.put(key, body, signal);
        return outputUrl(publicBaseUrl, key);
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
