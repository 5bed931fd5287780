// The requests a run makes to a ComfyUI server: one call (time limit, 5xx as the server's
// failure), finding a prompt sent before (a re-attach), uploading input images, sending the
// prompt (a refusal in ComfyUI's words), and canceling it.
import { randomInt } from "node:crypto";
import { FormData, request, type Dispatcher } from "undici";
import { comfyPrompt, extensionForMediaType, timeLimit, type ComfyUISettings } from "@svc/core";
import { RunnerError, type RunContext } from "../runner.js";
import { modelServers } from "../servers.js";

/** A failure of the server rather than of the run: 5xx, or no answer. */
export class ServerFailed extends Error {}

type Json = Record<string, unknown>;
type Init = { method?: string; headers?: Record<string, string>; body?: string | FormData };

/** The key of a prompt's extra_data that names its run (ComfyUI keeps it in its queue and history). */
const COMFY_RUN_KEY = "svc_run_id";

/** One request to the server (undici's request: a fraction of fetch's cost, on the idle gap's path). */
export async function callComfy(
  s: ComfyUISettings,
  server: string,
  path: string,
  init: Init = {},
  signal?: AbortSignal,
) {
  let res: Dispatcher.ResponseData;
  // The limit covers the answer and its body, and is cleared once the body is over.
  const limit = timeLimit(s.request_timeout_ms, signal);
  try {
    res = await request(new URL(path, `${server}/`), {
      dispatcher: modelServers,
      method: init.method ?? "GET",
      ...(init.headers && { headers: init.headers }),
      ...(init.body !== undefined && { body: init.body }),
      signal: limit.signal,
    });
    res.body.once("close", limit.clear);
  } catch (error) {
    limit.clear();
    signal?.throwIfAborted();
    throw new ServerFailed(`${server}: ${(error as Error).message}`);
  }
  const status = res.statusCode;
  if (status >= 500) {
    await res.body.dump().catch(() => {});
    throw new ServerFailed(`${server}/${path} answered ${status}`);
  }
  return {
    status,
    ok: status >= 200 && status < 300,
    json: () => res.body.json(),
    arrayBuffer: () => res.body.arrayBuffer(),
  };
}

const json = (body: unknown): Init => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** The run's prompt already on the server (a re-attach): in its queue or its history. */
export async function findPrompt(s: ComfyUISettings, server: string, runId: string): Promise<string | null> {
  const ofRun = (item: unknown) => {
    const extra = Array.isArray(item) ? (item[3] as Json | undefined) : undefined;
    return extra?.[COMFY_RUN_KEY] === runId || extra?.client_id === runId
      ? String((item as unknown[])[1])
      : null;
  };
  const queue = (await (await callComfy(s, server, "queue")).json()) as {
    queue_running?: unknown[];
    queue_pending?: unknown[];
  };
  for (const item of [...(queue.queue_running ?? []), ...(queue.queue_pending ?? [])]) {
    const id = ofRun(item);
    if (id) return id;
  }
  const history = (await (await callComfy(s, server, "history?max_items=200")).json()) as Record<
    string,
    { prompt?: unknown }
  >;
  for (const entry of Object.values(history)) {
    const id = ofRun(entry.prompt);
    if (id) return id;
  }
  return null;
}

/** The run's input images uploaded (/upload/image): each bound field's name on the server. */
export async function uploadInputs(
  ctx: RunContext,
  s: ComfyUISettings,
  server: string,
): Promise<Record<string, string>> {
  const uploaded: Record<string, string> = {};
  for (const b of s.bindings.filter((x) => x.file)) {
    const id = ctx.input[b.field];
    if (typeof id !== "string") continue;
    const file = await ctx.inputFile?.(id);
    if (!file) throw new RunnerError("INPUT_FILE_UNAVAILABLE", "The run's input file is no longer stored.");
    const form = new FormData();
    // Named after the run, so that a re-sent upload overwrites rather than piles up.
    const name = `${ctx.runId}-${b.field}.${extensionForMediaType(file.contentType)}`;
    form.set("image", new Blob([file.bytes], { type: file.contentType }), name);
    form.set("overwrite", "true");
    const res = await callComfy(s, server, "upload/image", { method: "POST", body: form }, ctx.signal);
    if (!res.ok) throw new RunnerError("INVALID_INPUT", `the server refused the input image (${res.status})`);
    const { name: stored, subfolder } = (await res.json()) as { name: string; subfolder?: string };
    uploaded[b.field] = subfolder ? `${subfolder}/${stored}` : stored;
  }
  return uploaded;
}

type NodeErrors = Record<string, { errors?: { message?: string; details?: string }[]; class_type?: string }>;

/** ComfyUI's refusal of a workflow (its error and node_errors) in one line. */
function refusal(answer: { error?: unknown; node_errors?: unknown }): string {
  const error = answer.error as { message?: string; details?: string } | string | undefined;
  const message =
    typeof error === "string" ? error : [error?.message, error?.details].filter(Boolean).join(": ");
  const nodes = Object.entries((answer.node_errors ?? {}) as NodeErrors)
    .map(
      ([node, e]) =>
        `${node} (${e.class_type ?? "?"}): ${(e.errors ?? []).map((x) => [x.message, x.details].filter(Boolean).join(" ")).join("; ")}`,
    )
    .join("; ");
  return `ComfyUI refused the workflow: ${[message, nodes].filter(Boolean).join(" — ").slice(0, 500)}`;
}

/**
 * Sends the run's prompt, its messages to this process's socket (`clientId`) and its run named in
 * its extra_data; a workflow the server refuses (node_errors) fails the run with its words.
 */
export async function sendPrompt(
  s: ComfyUISettings,
  server: string,
  clientId: string,
  run: { runId: string; input: Record<string, unknown>; uploaded: Record<string, string> },
  signal?: AbortSignal,
): Promise<string> {
  const prompt = comfyPrompt(s, run.input, run.uploaded, randomInt(0, 2 ** 32));
  const body = { prompt, client_id: clientId, extra_data: { [COMFY_RUN_KEY]: run.runId } };
  const res = await callComfy(s, server, "prompt", json(body), signal);
  const answer = (await res.json().catch(() => ({}))) as {
    prompt_id?: string;
    error?: unknown;
    node_errors?: unknown;
  };
  if (res.status === 400 || !answer.prompt_id) throw new RunnerError("INVALID_INPUT", refusal(answer));
  return answer.prompt_id;
}

/** Interrupts the prompt if it runs, else deletes it from the queue. */
export async function cancelPrompt(s: ComfyUISettings, server: string, promptId: string) {
  const queue = (await (await callComfy(s, server, "queue")).json().catch(() => ({}))) as {
    queue_running?: unknown[];
  };
  const running = (queue.queue_running ?? []).some((item) => Array.isArray(item) && item[1] === promptId);
  const res = running
    ? await callComfy(s, server, "interrupt", json({ prompt_id: promptId }))
    : await callComfy(s, server, "queue", json({ delete: [promptId] }));
  await res.json().catch(() => null);
}
