// How the model servers the fakes stand for load LoRAs named by URL (cog-flux's download cache,
// the "Load LoRA from URL" ComfyUI nodes): a URL seen before is served from a bounded cache (the
// least recently used goes), any other is downloaded, checked as safetensors and loaded, which
// takes time in proportion to its size as moving weights onto a GPU does.
import { readSafetensorsHeader } from "@svc/core";

export interface LoraCacheOptions {
  /** How many LoRAs stay loaded (default 4). */
  size?: number;
  /** What loading costs, in ms per MiB of the file (default 0). */
  msPerMiB?: number;
}

export function loraCache(options: LoraCacheOptions = {}) {
  /** URLs loaded, least recently used first. */
  const loaded: string[] = [];
  return {
    /** Loads a LoRA (or finds it loaded): whether it was a hit, and the failure if it could not be. */
    async load(url: string): Promise<{ hit: boolean; failure?: string }> {
      const at = loaded.indexOf(url);
      if (at >= 0) {
        loaded.push(...loaded.splice(at, 1));
        return { hit: true };
      }
      const res = await fetch(url).catch(() => null);
      if (!res?.ok) return { hit: false, failure: `failed to download LoRA: HTTP ${res?.status ?? "error"}` };
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (readSafetensorsHeader(bytes).kind !== "ok")
        return { hit: false, failure: "the LoRA is not a safetensors file" };
      const ms = ((options.msPerMiB ?? 0) * bytes.length) / 2 ** 20;
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      loaded.push(url);
      if (loaded.length > (options.size ?? 4)) loaded.shift();
      return { hit: false };
    },
  };
}
