// Where a Cog model's output files may come from: anywhere public, its own servers, and our own
// store (what Cog uploaded to the workers with --upload-url).
import { outputKeysIn } from "@svc/core";
import type { OutputFetchPolicy } from "../outputs.js";

/** How long one output file's download may take. */
export const COG_OUTPUT_TIMEOUT_MS = 120_000;

/**
 * How a Cog model's outputs are fetched: from anywhere public, and from its own servers. A file
 * Cog uploaded to us (its --upload-url, the workers' upload endpoint) is ours already: kept.
 */
export function cogFetchPolicy(
  servers: readonly string[],
  limits: { allowPrivateOutputs: boolean; maxOutputBytes: number; publicBaseUrl?: string },
): OutputFetchPolicy {
  const base = limits.publicBaseUrl;
  return {
    allowPrivate: limits.allowPrivateOutputs,
    trustedOrigins: new Set(servers.map((server) => new URL(server).origin)),
    timeoutMs: COG_OUTPUT_TIMEOUT_MS,
    maxBytes: limits.maxOutputBytes,
    ...(base && { ours: (ref: string) => outputKeysIn(ref, base).size > 0 }),
  };
}
