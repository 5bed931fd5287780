// Following a prompt to its end: its messages on this process's socket (steps as logs, each
// output node's files as made, the end), its history read when the socket says it ended, when the
// socket drops or the queue changes, or polled.
import { WebSocket } from "undici";
import { comfyHistoryEntrySchema, type ComfyHistoryEntry, type ComfyUISettings } from "@svc/core";
import { abortableDelay, RunnerError, type RunContext } from "../runner.js";
import { listen, type Channel, type Message } from "./channels.js";
import { callComfy, ServerFailed } from "./requests.js";

/** How many history reads in a row may fail before the server counts as gone with the prompt. */
const HISTORY_FAILURES_MAX = 3;

export interface Following {
  ctx: RunContext;
  s: ComfyUISettings;
  server: string;
  promptId: string;
  channel: Channel;
  /** Gives the server back (idempotent): its prompt has ended. */
  free(): Promise<unknown>;
  /** An output node's `executed` output. */
  made(output: unknown): void;
  /** Sent by another client (a worker that died), whose messages this socket never gets. */
  reattached: boolean;
}

const ENDS = ["execution_success", "execution_error", "execution_interrupted"];

/** The prompt's messages: steps as the run's logs, outputs as made, its end (which frees the server). */
function onMessage(f: Following, ended: AbortController) {
  return (message: Message) => {
    const data = message.data ?? {};
    if (message.type === "progress")
      f.ctx.progress({ logs: `node ${String(data.node)}: step ${String(data.value)}/${String(data.max)}` });
    if (message.type === "executed") f.made(data.output);
    const end = ENDS.includes(message.type ?? "") || (message.type === "executing" && data.node === null);
    if (!end || ended.signal.aborted) return;
    // The server is free from here: the next run's prompt goes while this one's end is read.
    void f.free();
    ended.abort();
  };
}

/** The prompt's history entry if it has ended; `failures` counts reads in a row the server did not answer. */
async function endedEntry(f: Following, failures: { count: number }): Promise<ComfyHistoryEntry | undefined> {
  let history: Record<string, unknown>;
  try {
    const res = await callComfy(f.s, f.server, `history/${encodeURIComponent(f.promptId)}`, {}, f.ctx.signal);
    history = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    failures.count = 0;
  } catch (error) {
    // A server that stops answering while its prompt runs took the prompt with it: the model's
    // failure (charged nothing, like any failed run), said at once.
    if (!(error instanceof ServerFailed)) throw error;
    if (++failures.count >= HISTORY_FAILURES_MAX)
      throw new RunnerError(
        "MODEL_ERROR",
        `the ComfyUI server stopped answering while the prompt ran (${error.message})`.slice(0, 500),
      );
    return undefined;
  }
  const parsed = comfyHistoryEntrySchema.safeParse(history[f.promptId]);
  return parsed.success && (parsed.data.status?.completed || parsed.data.status?.status_str)
    ? parsed.data
    : undefined;
}

/**
 * The prompt's history entry once it has ended, following /ws while it runs (polling if it
 * drops). A re-attached prompt's end is looked for at each of the server's queue changes.
 */
export async function follow(f: Following): Promise<ComfyHistoryEntry> {
  const { ctx, channel: c } = f;
  const ended = new AbortController();
  const done = AbortSignal.any([ctx.signal, ended.signal]);
  let poke = new AbortController();
  const waker = (why: "dropped" | "queue") => {
    if (why === "dropped" || f.reattached) poke.abort();
  };
  c.wakers.add(waker);
  const unlisten = listen(c, f.promptId, onMessage(f, ended));
  const failures = { count: 0 };
  try {
    for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
      const entry = await endedEntry(f, failures);
      if (entry) return entry;
      // Woken by the socket's end message, by a drop or a queue change (see Channel.wakers), or
      // polled (no socket, a missed message, or an end announced before its history was written).
      const listening =
        c.socket?.readyState === WebSocket.OPEN && !ended.signal.aborted && failures.count === 0;
      if (poke.signal.aborted) poke = new AbortController();
      await abortableDelay(
        listening ? 30_000 : wait,
        AbortSignal.any([ended.signal.aborted ? ctx.signal : done, poke.signal]),
      ).catch(() => ctx.signal.throwIfAborted());
      // The next run's prompt first: its release and send on this event loop before the reads.
      if (ended.signal.aborted) await f.free();
    }
  } finally {
    c.wakers.delete(waker);
    unlisten();
  }
}
