// What every kind of model server shares (Cog, OpenAI-style servers, ComfyUI): how an operator's
// server address is taken. A kind's own contract lives in its own module (cog.ts, comfyui.ts,
// openaiServer.ts); none of them is the others' base.
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { isMetadataAddress } from "./addresses.js";
import type { PoolSpec } from "./scheduling.js";

/**
 * A model server's base URL: http(s), and never at a link-local or cloud metadata address (model
 * servers are usually private, so private addresses are allowed). A host name is checked where it
 * is resolved (importing, changing servers).
 */
export const modelServerUrl = z
  .url({ protocol: /^https?$/, error: "expected an http(s) URL" })
  .max(2048)
  .refine((url) => {
    // Refinements run after a failed URL check too: what is no URL is that check's to refuse.
    if (!URL.canParse(url)) return true;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return !ipaddr.isValid(host) || !isMetadataAddress(host);
  }, "a model server cannot be at a link-local or cloud metadata address")
  // One spelling per server (host case, default port, trailing slash): a server's places are
  // counted by its URL, shared by every model that names it (the scheduler's `serving`).
  .transform((url) => {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}${parsed.search}`;
  });

/**
 * The pool of a kind whose runs take places on its servers: `concurrency` slots on each, and the
 * weights each keeps loaded where its runs take LoRAs (`lora_cache` where it has LoRA slots).
 */
export const serverPool = (
  s: {
    servers: readonly string[];
    health_interval_ms: number;
    loras?: readonly unknown[];
    lora_cache?: number;
  },
  concurrency: number,
): PoolSpec => ({
  kind: "servers",
  servers: s.servers,
  concurrency,
  healthIntervalMs: s.health_interval_ms,
  warmWeights: s.loras?.length ? (s.lora_cache ?? 0) : 0,
});

/**
 * How many LoRAs a server is taken to keep loaded, for warm routing (a model's `lora_cache`; the
 * kinds' default: cog-flux style models keep downloads in a disk cache and the URL-loading
 * ComfyUI nodes in memory, both more than a few; 8 assumes the least of them).
 */
export const loraCacheSetting = z.int().min(1).max(1_000).default(8);
