import got from "got";
import { extensionForMediaType } from "@svc/core";
import { RunnerError } from "../runner.js";
import type { RunOutputs } from "../storage.js";

const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;
/** Every file a Cog output refers to: data: URLs and http(s) URLs, in order, at any depth. */
export function fileReferences(output: unknown): string[] {
  if (typeof output === "string") return /^(data:|https?:\/\/)/.test(output) ? [output] : [];
  if (Array.isArray(output)) return output.flatMap(fileReferences);
  if (output && typeof output === "object") return Object.values(output).flatMap(fileReferences);
  return [];
}

function decodeDataUrl(url: string): { bytes: Buffer; ext: string } {
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (!match) throw new RunnerError("MODEL_ERROR", "the model returned a malformed data URL");
  const bytes = match[2]
    ? Buffer.from(match[3]!, "base64")
    : Buffer.from(decodeURIComponent(match[3]!), "utf8");
  return { bytes, ext: extensionForMediaType(match[1] ?? "") };
}

async function download(url: string, signal: AbortSignal): Promise<{ bytes: Buffer; ext: string }> {
  const response = await got(url, {
    responseType: "buffer",
    timeout: { request: 120_000 },
    signal,
    retry: { limit: 2 },
  });
  if (response.body.length > MAX_OUTPUT_BYTES)
    throw new RunnerError("MODEL_ERROR", "a model output is larger than 512 MiB");
  // The type the server declares decides; a URL path ending in .png proves nothing.
  return { bytes: response.body, ext: extensionForMediaType(String(response.headers["content-type"] ?? "")) };
}

/** Copies each output file into our storage, so clients only ever get our URLs. */
export async function copyOutputs(
  output: unknown,
  outputs: RunOutputs,
  signal: AbortSignal,
): Promise<string[]> {
  const urls: string[] = [];
  for (const [i, ref] of fileReferences(output).entries()) {
    const { bytes, ext } = ref.startsWith("data:") ? decodeDataUrl(ref) : await download(ref, signal);
    urls.push(await outputs.save(`${i}.${ext}`, bytes));
  }
  return urls;
}
