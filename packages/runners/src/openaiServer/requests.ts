// The requests a run makes to an OpenAI-style media server: one call (time limit, status to
// error) and the request that hands it a run's work.
import { FormData, request, type Dispatcher } from "undici";
import { openAIServerBody, timeLimit, type OpenAIServerSettings } from "@svc/core";
import { RunnerError } from "../runner.js";
import { modelServers } from "../servers.js";
import { authorization } from "./health.js";

export type Answer = Dispatcher.ResponseData;

/** A failure of the server rather than of the run's input: 5xx, 429, or no answer. */
export class ServerFailed extends Error {}

/** One request to a server, its answer when 2xx; else the failure, the server's or the run's. */
export async function callServer(
  s: OpenAIServerSettings,
  secretsKey: Buffer | undefined,
  server: string,
  path: string,
  init: { method?: string; body?: FormData; json?: unknown },
  signal: AbortSignal,
): Promise<Answer> {
  let res: Answer;
  // The limit covers the answer and its body, and is cleared once the body is over.
  const limit = timeLimit(s.request_timeout_ms, signal);
  try {
    // undici's request rather than fetch: a fraction of its cost per call, on the idle gap's path.
    res = await request(new URL(path, `${server}/`), {
      dispatcher: modelServers,
      method: init.method ?? (init.body || init.json ? "POST" : "GET"),
      headers: {
        ...authorization(s, secretsKey),
        ...(init.json !== undefined && { "content-type": "application/json" }),
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      signal: limit.signal,
    });
    res.body.once("close", limit.clear);
  } catch (error) {
    limit.clear();
    signal.throwIfAborted();
    throw new ServerFailed(`${server}: ${(error as Error).message}`);
  }
  const status = res.statusCode;
  if (status >= 200 && status < 300) return res;
  const text = (await res.body.text().catch(() => "")).slice(0, 500);
  if (status >= 500 || status === 429 || status === 409)
    throw new ServerFailed(`${server}${path} answered ${status}: ${text}`);
  // The model's settings, not the run's input: its key, its model name.
  if (status === 401 || status === 403 || status === 404)
    throw new RunnerError("MODEL_ERROR", `the model server refused the model (${status}): ${text}`);
  throw new RunnerError("INVALID_INPUT", `the model server refused the request (${status}): ${text}`);
}

export type InputImage = { bytes: Uint8Array; contentType: string };

/**
 * The request that hands a run's work to its server: images/generations (or images/edits, a
 * multipart form, for an image input), audio/speech, or the video job's creation (a form, as
 * OpenAI's clients send it, a reference image as its URL: a signed one of ours).
 */
export function requestOf(
  s: OpenAIServerSettings,
  input: Record<string, unknown>,
  fileFields: readonly string[],
  image?: InputImage,
): [string, { body?: FormData; json?: unknown }] {
  const body = openAIServerBody(s, input, fileFields);
  if (s.api === "speech") return ["v1/audio/speech", { json: body }];
  if (s.api === "images" && !image) return ["v1/images/generations", { json: body }];
  const form = new FormData();
  for (const [k, v] of Object.entries(body)) if (v !== undefined) form.set(k, String(v));
  if (image) {
    form.set("image", new Blob([image.bytes], { type: image.contentType }), "image");
    return ["v1/images/edits", { body: form }];
  }
  const reference = fileFields[0] && input[fileFields[0]];
  if (typeof reference === "string") form.set("input_reference[image_url]", reference);
  return ["v1/videos", { body: form }];
}
