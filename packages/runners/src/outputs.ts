// Copying a model server's output files into our store, for every kind of server (Cog, OpenAI-style,
// ComfyUI): data URLs decoded, URLs downloaded with the address rules of a URL someone outside
// chose, sizes bounded while streaming. A kind says only where its files may come from (its
// OutputFetchPolicy).
import { pipeline, Transform, type Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { extensionForMediaType, fileReferences } from "@svc/core";
import { RunnerError } from "./runner.js";
import { guardedAgents, guardedGet, RefusedUrl } from "@svc/net";
import type { RunOutputs } from "@svc/storage";

function decodeDataUrl(url: string): { body: Buffer; ext: string } {
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (!match) throw new RunnerError("MODEL_ERROR", "the model returned a malformed data URL");
  const body = match[2]
    ? Buffer.from(match[3]!, "base64")
    : Buffer.from(decodeURIComponent(match[3]!), "utf8");
  return { body, ext: extensionForMediaType(match[1] ?? "") };
}

/** A model's files, copied, in the shape of our outputs: { images }, { video } or { audio }. */
export function outputOfKind(kind: "image" | "video" | "audio", urls: string[]): Record<string, string[]> {
  return { [kind === "image" ? "images" : kind]: urls };
}

/** How model outputs are fetched from URLs the model chose. */
export interface OutputFetchPolicy {
  /** Loopback and private addresses allowed everywhere (local development, tests). */
  allowPrivate: boolean;
  /** Origins of the model's own servers, which may be internal (Cog's --upload-url). */
  trustedOrigins: ReadonlySet<string>;
  timeoutMs: number;
  maxBytes: number;
  /** An output URL that is one of ours already (uploaded to the service): kept as it is. */
  ours?(ref: string): boolean;
}

/** Outputs up to this size (declared by the server) are read into memory rather than streamed. */
const IN_MEMORY_MAX_BYTES = 1_048_576;
// Agents hold no sockets until used; the guarded one checks every address it connects to.
const agents = guardedAgents();

const tooLarge = (maxBytes: number) =>
  new RunnerError("MODEL_ERROR", `a model output is larger than ${maxBytes} bytes`);

/**
 * One output, fetched with the webhook sender's protections (guardedGet: no internal address unless
 * it is the model's own server, redirects checked hop by hop, time-outs), and the size limit
 * enforced while the body streams in. The file type is the one the server declares.
 */
async function download(url: string, signal: AbortSignal, policy: OutputFetchPolicy) {
  let response: Dispatcher.ResponseData;
  try {
    response = await guardedGet(url, {
      allowPrivate: policy.allowPrivate,
      trustedOrigins: policy.trustedOrigins,
      timeoutMs: policy.timeoutMs,
      signal,
      agents,
    });
  } catch (error) {
    if (error instanceof RefusedUrl)
      throw new RunnerError("MODEL_ERROR", `a model output URL was refused: ${error.why}`);
    throw error;
  }
  const { statusCode, headers, body } = response;
  if (statusCode < 200 || statusCode > 299) {
    await body.dump();
    // A server error may pass (the job is retried); a client error will not.
    if (statusCode >= 500) throw new Error(`output download answered ${statusCode}`);
    throw new RunnerError("MODEL_ERROR", `a model output could not be downloaded (HTTP ${statusCode})`);
  }
  const declared = Number(headers["content-length"]);
  if (declared > policy.maxBytes) {
    body.on("error", () => {}).destroy();
    throw tooLarge(policy.maxBytes);
  }
  const ext = extensionForMediaType(String(headers["content-type"] ?? ""));
  // A small file of declared size (an image, most often) is read whole: one buffer and one write
  // instead of two stream pipelines. Others stream, their size checked as they come.
  if (Number.isInteger(declared) && declared <= IN_MEMORY_MAX_BYTES) {
    const bytes = Buffer.from(await body.arrayBuffer());
    if (bytes.length > policy.maxBytes) throw tooLarge(policy.maxBytes);
    return { body: bytes, ext };
  }
  // pipeline, unlike pipe, passes the download's own failures on to the reader.
  return { body: pipeline(body, sizeLimit(policy.maxBytes), () => {}), ext };
}

/** Passes bytes through until more than maxBytes have come, then fails the stream. */
function sizeLimit(maxBytes: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback(tooLarge(maxBytes));
      callback(null, chunk);
    },
  });
}

/**
 * Copies each output file into our storage, so clients only ever get our URLs. Downloads stream
 * into the store as they arrive: a file's size costs no memory, and past maxBytes the copy fails
 * and leaves nothing stored. `known`: files copied before (a prediction's outputs so far, which
 * Cog sends again with each new one), reused rather than fetched again.
 */
export async function copyOutputs(
  output: unknown,
  outputs: RunOutputs,
  signal: AbortSignal,
  policy: OutputFetchPolicy,
  known?: ReadonlyMap<string, string>,
): Promise<string[]> {
  const urls: string[] = [];
  for (const [i, ref] of fileReferences(output).entries()) {
    const copied = known?.get(ref) ?? (policy.ours?.(ref) ? ref : undefined);
    if (copied) {
      urls.push(copied);
      continue;
    }
    const file: { body: Readable | Buffer; ext: string } = ref.startsWith("data:")
      ? decodeDataUrl(ref)
      : await download(ref, signal, policy);
    if (Buffer.isBuffer(file.body) && file.body.length > policy.maxBytes) throw tooLarge(policy.maxBytes);
    try {
      urls.push(await outputs.save(`${i}.${file.ext}`, file.body, signal));
    } catch (error) {
      // The store may give up without reading the download to its end: its socket goes now.
      if (!Buffer.isBuffer(file.body)) file.body.destroy();
      throw error;
    }
  }
  return urls;
}
