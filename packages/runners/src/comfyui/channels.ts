// This process's sockets on ComfyUI servers (/ws with the process's client id): ComfyUI sends each
// the messages of every prompt this process sent there, each naming its prompt.
import { randomUUID } from "node:crypto";
import { WebSocket } from "undici";
import { modelServers } from "../servers.js";

type Json = Record<string, unknown>;
export type Message = { type?: string; data?: Json };

/** Prompts whose messages are kept until someone listens (they may arrive before /prompt's answer). */
const EARLY_PROMPTS_MAX = 100;

/**
 * One server's socket; `listeners` take its messages by prompt id. Opened on first use and again
 * after it drops, never waited for: while it is not open, a run reads its end from /history.
 */
export interface Channel {
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

export class Channels {
  /** The client id of this process's prompts and sockets. */
  readonly clientId = `svc-${randomUUID()}`;
  private readonly channels = new Map<string, Channel>();

  /** The server's channel, its socket (re)opening in the background if it is not open. */
  of(server: string): Channel {
    let c = this.channels.get(server);
    if (!c)
      this.channels.set(
        server,
        (c = { socket: null, opening: false, listeners: new Map(), early: new Map(), wakers: new Set() }),
      );
    if (c.socket || c.opening) return c;
    const opened = c;
    opened.opening = true;
    openSocket(server, this.clientId)
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

  close() {
    for (const c of this.channels.values()) c.socket?.close();
    this.channels.clear();
  }
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
export function listen(c: Channel, promptId: string, listener: (message: Message) => void) {
  c.listeners.set(promptId, listener);
  for (const message of c.early.get(promptId) ?? []) listener(message);
  c.early.delete(promptId);
  return () => c.listeners.delete(promptId);
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
