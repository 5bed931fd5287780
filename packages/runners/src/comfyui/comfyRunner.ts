import { randomInt, randomUUID } from "node:crypto";
import { FormData, request, WebSocket, type Dispatcher } from "undici";
import { modelServers } from "../servers.js";
import {
  timeLimit,
  comfyHistoryEntrySchema,
  comfyOutputFiles,
  comfyPrompt,
  extensionForMediaType,
  namesFiles,
  serverOfSlot,
  type ComfyHistoryEntry,
  type ComfyUISettings,
} from "@svc/core";
import { abortableDelay, RunnerCanceled, RunnerError, type RunContext, type Runner } from "../runner.js";
import { outputOfKind } from "../outputs.js";

export interface ComfyRunnerDeps {
  /** Gives a run's slot back once its server is done (the worker also does, at the run's end). */
  slots?: { release(runId: string): Promise<void> };
  maxOutputBytes: number;
  log?(level: "debug" | "info", message: string, meta: Record<string, unknown>): void;
}

class ServerFailed extends Error {}

type Json = Record<string, unknown>;
type Init = { method?: string; headers?: Record<string, string>; body?: string | FormData };
type ComfyFile = ReturnType<typeof comfyOutputFiles>[number];
type Message = { type?: string; data?: Json };

/** The key of a prompt's extra_data that names its run (ComfyUI keeps it in its queue and history). */
export const COMFY_RUN_KEY = "svc_run_id";

/** How long a prompt sent by begin() waits for its run to claim it. */
const UNCLAIMED_MS = 60_000;
/** Prompts whose messages are kept until someone listens (they may arrive before /prompt's answer). */
const EARLY_PROMPTS_MAX = 100;

/**
 * This process's socket on a server (/ws with the process's client id): ComfyUI sends it the
 * messages of every prompt this process sent there, each naming its prompt; `listeners` take them
 * by prompt id. Opened on first use and again after it drops, never waited for: while it is not
 * open, a run reads its end from /history.
 */
interface Channel {
  socket: WebSocket | null;
  opening: boolean;
  listeners: Map<string, (message: Message) => void>;
  early: Map<string, Message[]>;
  /**
   * Followers to wake when their prompt's end may have come without a message to this socket:
   * the socket dropped (the server may have died), or the server's queue changed (ComfyUI
   * broadcasts `status` to every socket, also when a prompt another client sent ends: a prompt
   * re-attached after its worker died reports its end to that worker's dead socket).
   */
  wakers: Set<(why: "dropped" | "queue") => void>;
}

/** How many history reads in a row may fail before the server counts as gone with the prompt. */
const HISTORY_FAILURES_MAX = 3;

/**
 * Runs a workflow on ComfyUI servers, on the server of the slot the scheduler leased the run (one
 * prompt per server: ComfyUI's own FIFO queue never holds our runs). The run's id is its prompt's
 * client_id: before sending, a run that is not fresh looks for its prompt in the server's queue and
 * history, so a worker restarted mid-prompt re-attaches instead of sending it twice. Progress
 * comes over /ws (the sampler's steps as logs, each output node's files as they are made); the
 * end is read from /history (also the fallback when the socket drops). Cancel interrupts the
 * running prompt (POST /interrupt with its id) or deletes a pending one from the queue.
 */
export function createComfyRunner(deps: ComfyRunnerDeps): Runner & { close(): void } {
  const log = deps.log ?? (() => {});
  const clientId = `svc-${randomUUID()}`;
  const channels = new Map<string, Channel>();

  function channel(server: string): Channel {
    let c = channels.get(server);
    if (!c)
      channels.set(
        server,
        (c = { socket: null, opening: false, listeners: new Map(), early: new Map(), wakers: new Set() }),
      );
    if (c.socket || c.opening) return c;
    const opened = c;
    opened.opening = true;
    openSocket(server, clientId)
      .then((socket) => {
        opened.socket = socket;
        socket.addEventListener("message", (event) => route(opened, event.data));
        socket.addEventListener("close", () => {
          if (opened.socket === socket) opened.socket = null;
          for (const wake of opened.wakers) wake("dropped");
        });
      })
      .catch(() => {})
      .finally(() => (opened.opening = false));
    return c;
  }

  function route(c: Channel, raw: unknown) {
    if (typeof raw !== "string") return; // binary preview frames
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (message.type === "status") for (const wake of c.wakers) wake("queue");
    const promptId = message.data?.prompt_id;
    if (typeof promptId !== "string") return;
    const listener = c.listeners.get(promptId);
    if (listener) return listener(message);
    c.early.set(promptId, [...(c.early.get(promptId) ?? []), message]);
    if (c.early.size > EARLY_PROMPTS_MAX) c.early.delete(c.early.keys().next().value!);
  }

  /** Takes a prompt's messages (those that came before too) until the returned function is called. */
  function listen(c: Channel, promptId: string, listener: (message: Message) => void) {
    c.listeners.set(promptId, listener);
    for (const message of c.early.get(promptId) ?? []) listener(message);
    c.early.delete(promptId);
    return () => c.listeners.delete(promptId);
  }

  /** One request to the server (undici's request: a fraction of fetch's cost, on the idle gap's path). */
  async function call(
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
  async function findPrompt(s: ComfyUISettings, server: string, runId: string): Promise<string | null> {
    const ofRun = (item: unknown) => {
      const extra = Array.isArray(item) ? (item[3] as Json | undefined) : undefined;
      return extra?.[COMFY_RUN_KEY] === runId || extra?.client_id === runId
        ? String((item as unknown[])[1])
        : null;
    };
    const queue = (await (await call(s, server, "queue")).json()) as {
      queue_running?: unknown[];
      queue_pending?: unknown[];
    };
    for (const item of [...(queue.queue_running ?? []), ...(queue.queue_pending ?? [])]) {
      const id = ofRun(item);
      if (id) return id;
    }
    const history = (await (await call(s, server, "history?max_items=200")).json()) as Record<
      string,
      { prompt?: unknown }
    >;
    for (const entry of Object.values(history)) {
      const id = ofRun(entry.prompt);
      if (id) return id;
    }
    return null;
  }

  async function upload(
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
      form.set(
        "image",
        new Blob([file.bytes], { type: file.contentType }),
        `${ctx.runId}-${b.field}.${extensionForMediaType(file.contentType)}`,
      );
      form.set("overwrite", "true");
      const res = await call(s, server, "upload/image", { method: "POST", body: form }, ctx.signal);
      if (!res.ok)
        throw new RunnerError("INVALID_INPUT", `the server refused the input image (${res.status})`);
      const { name, subfolder } = (await res.json()) as { name: string; subfolder?: string };
      uploaded[b.field] = subfolder ? `${subfolder}/${name}` : name;
    }
    return uploaded;
  }

  /**
   * Sends the run's prompt, its messages to this process's socket and its run named in its
   * extra_data; a workflow the server refuses (node_errors) fails the run with its words.
   */
  async function send(
    s: ComfyUISettings,
    server: string,
    runId: string,
    input: Record<string, unknown>,
    uploaded: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<string> {
    const prompt = comfyPrompt(s, input, uploaded, randomInt(0, 2 ** 32));
    const body = { prompt, client_id: clientId, extra_data: { [COMFY_RUN_KEY]: runId } };
    const res = await call(s, server, "prompt", json(body), signal);
    const answer = (await res.json().catch(() => ({}))) as {
      prompt_id?: string;
      error?: unknown;
      node_errors?: unknown;
    };
    if (res.status === 400 || !answer.prompt_id) {
      const error = answer.error as { message?: string; details?: string } | string | undefined;
      const message =
        typeof error === "string" ? error : [error?.message, error?.details].filter(Boolean).join(": ");
      const nodes = Object.entries(
        (answer.node_errors ?? {}) as Record<
          string,
          { errors?: { message?: string; details?: string }[]; class_type?: string }
        >,
      )
        .map(
          ([node, e]) =>
            `${node} (${e.class_type ?? "?"}): ${(e.errors ?? []).map((x) => [x.message, x.details].filter(Boolean).join(" ")).join("; ")}`,
        )
        .join("; ");
      throw new RunnerError(
        "INVALID_INPUT",
        `ComfyUI refused the workflow: ${[message, nodes].filter(Boolean).join(" — ").slice(0, 500)}`,
      );
    }
    return answer.prompt_id;
  }

  /**
   * The prompt's history entry once it has ended, following /ws while it runs (polling if it
   * drops). `reattached`: the prompt was sent by another client (a worker that died), whose
   * messages this socket never gets: its end is looked for at each of the server's queue changes.
   */
  async function follow(
    ctx: RunContext,
    s: ComfyUISettings,
    server: string,
    promptId: string,
    c: Channel,
    free: () => Promise<unknown>,
    made: (output: unknown) => void,
    reattached: boolean,
  ): Promise<ComfyHistoryEntry> {
    const ended = new AbortController();
    const done = AbortSignal.any([ctx.signal, ended.signal]);
    let poke = new AbortController();
    const waker = (why: "dropped" | "queue") => {
      if (why === "dropped" || reattached) poke.abort();
    };
    c.wakers.add(waker);
    const unlisten = listen(c, promptId, (message) => {
      const data = message.data ?? {};
      if (message.type === "progress")
        ctx.progress({ logs: `node ${String(data.node)}: step ${String(data.value)}/${String(data.max)}` });
      if (message.type === "executed") made(data.output);
      const end =
        ["execution_success", "execution_error", "execution_interrupted"].includes(message.type ?? "") ||
        (message.type === "executing" && data.node === null);
      if (!end || ended.signal.aborted) return;
      // The server is free from here: the next run's prompt goes while this one's end is read.
      free();
      ended.abort();
    });
    let failures = 0;
    try {
      for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
        let history: Record<string, unknown>;
        try {
          const res = await call(s, server, `history/${encodeURIComponent(promptId)}`, {}, ctx.signal);
          history = (await res.json().catch(() => ({}))) as Record<string, unknown>;
          failures = 0;
        } catch (error) {
          // A server that stops answering while its prompt runs took the prompt with it: the
          // model's failure (charged nothing, like any failed run), said at once.
          if (!(error instanceof ServerFailed)) throw error;
          if (++failures >= HISTORY_FAILURES_MAX)
            throw new RunnerError(
              "MODEL_ERROR",
              `the ComfyUI server stopped answering while the prompt ran (${error.message})`.slice(0, 500),
            );
          history = {};
        }
        const parsed = comfyHistoryEntrySchema.safeParse(history[promptId]);
        if (parsed.success && (parsed.data.status?.completed || parsed.data.status?.status_str))
          return parsed.data;
        // Woken by the socket's end message, by a drop or a queue change (see Channel.wakers), or
        // polled (no socket, a missed message, or an end announced before its history was written).
        const listening = c.socket?.readyState === WebSocket.OPEN && !ended.signal.aborted && failures === 0;
        if (poke.signal.aborted) poke = new AbortController();
        await abortableDelay(
          listening ? 30_000 : wait,
          AbortSignal.any([ended.signal.aborted ? ctx.signal : done, poke.signal]),
        ).catch(() => ctx.signal.throwIfAborted());
        // The next run's prompt first: its release and send on this event loop before the reads.
        if (ended.signal.aborted) await free();
      }
    } finally {
      c.wakers.delete(waker);
      unlisten();
    }
  }

  async function cancel(s: ComfyUISettings, server: string, promptId: string) {
    const queue = (await (await call(s, server, "queue")).json().catch(() => ({}))) as {
      queue_running?: unknown[];
    };
    const running = (queue.queue_running ?? []).some((item) => Array.isArray(item) && item[1] === promptId);
    const res = running
      ? await call(s, server, "interrupt", json({ prompt_id: promptId }))
      : await call(s, server, "queue", json({ delete: [promptId] }));
    await res.json().catch(() => null);
  }

  /**
   * A run's output files, each fetched with /view and stored once: as its node reports it made
   * them (shown on the run while the prompt goes on), or at the end from the history.
   */
  function outputFiles(ctx: RunContext, s: ComfyUISettings, server: string) {
    const stored = new Map<string, Promise<string>>();
    const store = async (f: ComfyFile, name: number) => {
      const query = new URLSearchParams({ filename: f.filename, subfolder: f.subfolder, type: f.type });
      const res = await call(s, server, `view?${query}`, {}, ctx.signal);
      if (!res.ok)
        throw new RunnerError("MODEL_ERROR", `an output could not be fetched from ComfyUI (${res.status})`);
      const bytes = Buffer.from(await res.arrayBuffer());
      if (bytes.length > deps.maxOutputBytes)
        throw new RunnerError("MODEL_ERROR", `a model output is larger than ${deps.maxOutputBytes} bytes`);
      const ext = f.filename.includes(".")
        ? f.filename.slice(f.filename.lastIndexOf(".") + 1).toLowerCase()
        : "bin";
      return ctx.outputs.save(`${name}.${ext}`, bytes, ctx.signal);
    };
    return (files: ComfyFile[]) =>
      Promise.all(
        files.map((f) => {
          const key = `${f.type}/${f.subfolder}/${f.filename}`;
          if (!stored.has(key)) {
            // One that failed is fetched again by the next caller (the end's, at the latest).
            const url = store(f, stored.size);
            stored.set(key, url);
            url.catch(() => stored.delete(key));
          }
          return stored.get(key)!;
        }),
      );
  }

  /**
   * Prompts sent by begin() before their runs' starts committed, by run id, until run() (or
   * abandon()) claims them; one never claimed (its run failed to start here) is forgotten.
   */
  const sent = new Map<string, Promise<string>>();
  const claim = (runId: string) => {
    const early = sent.get(runId);
    sent.delete(runId);
    return early;
  };

  return {
    // The prompt leaves while the run's start is recorded; run() follows it in this process (core's
    // executesWhereLeased). Not for an input with files: those are uploaded first, at the start.
    async begin({ runId, input, settings, slot }) {
      const server = slot ? serverOfSlot(slot) : null;
      if (settings.kind !== "comfyui" || !server || namesFiles(input)) return false;
      channel(server);
      const promptId = send(settings, server, runId, input, {});
      sent.set(runId, promptId);
      promptId.catch(() => {});
      setTimeout(() => {
        if (sent.get(runId) === promptId) sent.delete(runId);
      }, UNCLAIMED_MS).unref();
      return true;
    },

    async abandon({ runId, settings, slot }) {
      const early = claim(runId);
      const server = slot ? serverOfSlot(slot) : null;
      if (!early || !server || settings.kind !== "comfyui") return;
      const promptId = await early.catch(() => null);
      if (promptId) await cancel(settings, server, promptId).catch(() => {});
    },

    close() {
      for (const c of channels.values()) c.socket?.close();
      channels.clear();
    },

    async run(ctx) {
      if (ctx.settings.kind !== "comfyui") throw new RunnerError("INTERNAL_ERROR", "not a ComfyUI model");
      const s = ctx.settings;
      const server = ctx.slot ? serverOfSlot(ctx.slot) : null;
      if (!server) throw new Error("a ComfyUI model's run has no server slot");
      const c = channel(server);
      const early = ctx.fresh && ctx.begun && (await ctx.begun) ? claim(ctx.runId) : undefined;
      let promptId: string | null = null;
      let reattached = false;
      try {
        if (early) {
          promptId = await early;
          ctx.signal.throwIfAborted();
        } else {
          promptId = ctx.fresh ? null : await findPrompt(s, server, ctx.runId);
          reattached = promptId !== null;
          if (promptId)
            log("info", "comfyui prompt re-attached", { server, prompt_id: promptId, run_id: ctx.runId });
          else
            promptId = await send(s, server, ctx.runId, ctx.input, await upload(ctx, s, server), ctx.signal);
        }
        let freed: Promise<unknown> | undefined;
        const free = () => (freed ??= (deps.slots?.release(ctx.runId) ?? Promise.resolve()).catch(() => {}));
        const files = outputFiles(ctx, s, server);
        // Images shown as their nodes make them (a unit each, charged if the run is canceled);
        // a video or audio is one piece of the run's seconds, shown at the end.
        const shown: ComfyFile[] = [];
        let showing = Promise.resolve();
        const made = (output: unknown) => {
          const parsed = comfyHistoryEntrySchema.safeParse({ outputs: { node: output } });
          if (s.output !== "image" || !parsed.success) return;
          shown.push(...comfyOutputFiles(parsed.data));
          const now = [...shown];
          showing = showing
            .then(async () => {
              // After the messages that came with it: when they end the prompt, the next one is
              // sent before these files are fetched.
              await new Promise((resolve) => setImmediate(resolve));
              await freed;
              const urls = await files(now);
              ctx.progress({
                completed: urls.length,
                total: Math.max(ctx.unitsRequested, urls.length),
                output: outputOfKind(s.output, urls),
              });
            })
            .catch(() => {});
        };
        const entry = await follow(ctx, s, server, promptId, c, free, made, reattached);
        await free();
        if (entry.status?.status_str === "error") {
          const messages = (entry.status.messages ?? []) as [string, Json][];
          const interrupted = messages.some(([type]) => type === "execution_interrupted");
          if (interrupted) throw new RunnerCanceled("The prompt was interrupted on the ComfyUI server.");
          const error = messages.find(([type]) => type === "execution_error")?.[1];
          throw new RunnerError(
            "MODEL_ERROR",
            `ComfyUI failed: ${String(error?.exception_message ?? "the prompt failed")}`.slice(0, 500),
          );
        }
        await showing;
        const urls = await files(comfyOutputFiles(entry));
        return { output: outputOfKind(s.output, urls) };
      } catch (error) {
        if (ctx.signal.aborted && promptId) await cancel(s, server, promptId).catch(() => {});
        if (error instanceof ServerFailed)
          log("info", "comfyui server failed", { server, error: error.message });
        throw error;
      }
    },
  };
}

/** The server's /ws for this client id, once open (its messages name the prompts of the client). */
function openSocket(server: string, clientId: string): Promise<WebSocket> {
  const url = new URL(`ws?clientId=${encodeURIComponent(clientId)}`, `${server}/`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { dispatcher: modelServers });
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error("no socket"));
    }, 5_000);
    socket.addEventListener("open", () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.addEventListener("error", () => {
      clearTimeout(timer);
      reject(new Error("socket failed"));
    });
  });
}
