import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { loraCache, type LoraCacheOptions } from "./fakeLoras.js";
import { testPng } from "./media.js";
import { preciseNow } from "./clock.js";

// A ComfyUI server as comfyanonymous/ComfyUI's server.py and execution.py serve one: POST /prompt
// (validated: unknown nodes and missing inputs are 400 with node_errors), its own FIFO queue with
// one prompt executing at a time (a GPU), /ws?clientId= messages (status, execution_start,
// executing, progress, executed, execution_success | execution_error | execution_interrupted),
// /history, /queue (and its delete), /interrupt (with a prompt_id), /view, /upload/image and
// /system_stats. No ComfyUI can run here (no GPU, no weights); its nodes are mimicked: the
// sampler takes `steps` x stepMs, SaveImage saves one PNG per latent of EmptyLatentImage's size.

const KNOWN = new Set([
  "CheckpointLoaderSimple",
  "CLIPTextEncode",
  "EmptyLatentImage",
  "KSampler",
  "VAEDecode",
  "VAEEncode",
  "SaveImage",
  "LoadImage",
  // A "Load LoRA from URL" custom node: downloads the LoRA at `url` (cached by URL) and applies it.
  "LoadLoraFromURL",
]);
const REQUIRED: Record<string, string[]> = {
  CLIPTextEncode: ["text", "clip"],
  EmptyLatentImage: ["width", "height", "batch_size"],
  KSampler: ["seed", "steps", "model", "positive", "negative", "latent_image"],
  LoadImage: ["image"],
  SaveImage: ["images"],
  LoadLoraFromURL: ["model", "clip", "url", "strength_model", "strength_clip"],
};

type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

export interface FakeComfyPrompt {
  id: string;
  clientId: string;
  /** Its extra_data as posted (ComfyUI keeps it, client_id added, in its queue and history). */
  extraData: Record<string, unknown>;
  prompt: Workflow;
  number: number;
  /** When POST /prompt put it in the queue, and when the GPU took it. */
  queuedAt: number;
  startedAt?: number;
  endedAt?: number;
  status: "pending" | "running" | "success" | "error" | "interrupted" | "deleted";
}

export interface FakeComfyUI {
  url: string;
  /** Every prompt it accepted, in order. */
  prompts: FakeComfyPrompt[];
  /** POST /prompt requests received (accepted or refused). */
  posted: number;
  interrupts: string[];
  uploads: Map<string, Buffer>;
  /** The most prompts it executed at once (a GPU: 1). */
  maxConcurrent: number;
  /** Each LoRA a prompt loaded (a LoadLoraFromURL node of strength not 0): its URL, and whether it was cached. */
  loras: { id: string; url: string; hit: boolean }[];
  /** Stops answering (connections refused, sockets closed) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeComfyUI(
  options: { stepMs?: number; imageSide?: number; port?: number; loras?: LoraCacheOptions } = {},
): Promise<FakeComfyUI> {
  const stepMs = options.stepMs ?? 20;
  const prompts: FakeComfyPrompt[] = [];
  const history = new Map<string, Record<string, unknown>>();
  const files = new Map<string, Buffer>();
  const uploads = new Map<string, Buffer>();
  const interrupts: string[] = [];
  const sockets = new Map<string, Set<WebSocket>>();
  let number = 0;
  let running: FakeComfyPrompt | undefined;
  let timer: NodeJS.Timeout | undefined;
  const fake = { posted: 0, maxConcurrent: 0, loras: [] as FakeComfyUI["loras"] };
  const cache = loraCache(options.loras);

  /** The prompt's LoRA nodes run first: each URL downloaded unless cached; the failure, if any. */
  async function loadLoras(p: FakeComfyPrompt): Promise<string | undefined> {
    for (const node of Object.values(p.prompt)) {
      if (node.class_type !== "LoadLoraFromURL" || Number(node.inputs.strength_model) === 0) continue;
      const url = String(node.inputs.url);
      const { hit, failure } = await cache.load(url);
      fake.loras.push({ id: p.id, url, hit });
      if (failure) return failure;
    }
    return undefined;
  }

  /** A prompt's history entry once it ended without outputs (failed or interrupted). */
  const errorEntry = (p: FakeComfyPrompt, message: [string, Record<string, unknown>]) =>
    history.set(p.id, {
      prompt: queueItem(p),
      outputs: {},
      status: { status_str: "error", completed: false, messages: [message] },
      meta: {},
    });

  /** A prompt that failed while executing, as ComfyUI reports it. */
  function failed(p: FakeComfyPrompt, message: string) {
    errorEntry(p, ["execution_error", { prompt_id: p.id, exception_message: message }]);
    p.status = "error";
    p.endedAt = preciseNow();
    running = undefined;
    emit(p.clientId, "execution_error", { prompt_id: p.id, exception_message: message });
    next();
    queueUpdated();
  }

  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const emit = (clientId: string, type: string, data: Record<string, unknown>) => {
    for (const ws of sockets.get(clientId) ?? []) ws.send(JSON.stringify({ type, data }));
  };
  /** ComfyUI's queue_updated: `status` to every socket (sid None), when a prompt is queued or done. */
  const queueUpdated = () => {
    const remaining = prompts.filter((p) => p.status === "pending").length + (running ? 1 : 0);
    const message = JSON.stringify({
      type: "status",
      data: { status: { exec_info: { queue_remaining: remaining } } },
    });
    for (const set of sockets.values()) for (const ws of set) ws.send(message);
  };
  const queueItem = (p: FakeComfyPrompt) => [
    p.number,
    p.id,
    p.prompt,
    { ...p.extraData, client_id: p.clientId },
    ["9"],
  ];

  async function body(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  /** execution.validate_prompt, in short: known nodes, their required inputs, uploaded images. */
  function validate(workflow: Workflow) {
    const nodeErrors: Record<string, unknown> = {};
    for (const [id, node] of Object.entries(workflow ?? {})) {
      if (!node || !KNOWN.has(node.class_type))
        return {
          error: {
            type: "invalid_prompt",
            message: `Cannot execute because node ${node?.class_type} does not exist.`,
            details: `Node ID '#${id}'`,
          },
          nodeErrors,
        };
      const errors = (REQUIRED[node.class_type] ?? [])
        .filter((name) => node.inputs?.[name] === undefined)
        .map((name) => ({
          type: "required_input_missing",
          message: "Required input is missing",
          details: name,
        }));
      if (
        node.class_type === "LoadImage" &&
        typeof node.inputs.image === "string" &&
        !uploads.has(node.inputs.image)
      )
        errors.push({
          type: "custom_validation_failed",
          message: "Invalid image file",
          details: `image - Invalid image file: ${node.inputs.image}`,
        });
      if (errors.length) nodeErrors[id] = { errors, dependent_outputs: [], class_type: node.class_type };
    }
    if (!Object.values(workflow ?? {}).some((n) => n.class_type === "SaveImage"))
      return {
        error: { type: "prompt_no_outputs", message: "Prompt has no outputs", details: "" },
        nodeErrors,
      };
    return Object.keys(nodeErrors).length
      ? {
          error: {
            type: "prompt_outputs_failed_validation",
            message: "Prompt outputs failed validation",
            details: "",
          },
          nodeErrors,
        }
      : null;
  }

  /** The next prompt of its FIFO queue, when the GPU is free. */
  function next() {
    if (running) return;
    const p = prompts.find((x) => x.status === "pending");
    if (!p) return;
    running = p;
    p.status = "running";
    p.startedAt = preciseNow();
    fake.maxConcurrent = Math.max(fake.maxConcurrent, 1);
    void loadLoras(p).then((failure) => (failure ? failed(p, failure) : execute(p)));
  }

  /** The prompt's sampler steps, then its images. */
  function execute(p: FakeComfyPrompt) {
    const nodes = Object.entries(p.prompt);
    const sampler = nodes.find(([, n]) => n.class_type === "KSampler");
    const latent = nodes.find(([, n]) => n.class_type === "EmptyLatentImage")?.[1].inputs;
    const steps = Number(sampler?.[1].inputs.steps ?? 4);
    emit(p.clientId, "execution_start", { prompt_id: p.id, timestamp: Date.now() });
    emit(p.clientId, "executing", {
      node: sampler?.[0] ?? null,
      display_node: sampler?.[0],
      prompt_id: p.id,
    });
    let step = 0;
    timer = setInterval(() => {
      step++;
      emit(p.clientId, "progress", { value: step, max: steps, prompt_id: p.id, node: sampler?.[0] });
      if (step < steps) return;
      clearInterval(timer);
      const batch = Number(latent?.batch_size ?? 1);
      const [w, h] = [Number(latent?.width ?? 64), Number(latent?.height ?? 64)];
      const side = options.imageSide;
      const images = Array.from({ length: batch }, (_, i) => {
        const filename = `ComfyUI_${String(number).padStart(5, "0")}_${p.id.slice(0, 8)}_${i}.png`;
        files.set(filename, testPng(side ?? w, side ?? h, `${p.id} ${i}`));
        return { filename, subfolder: "", type: "output" };
      });
      const save = nodes.find(([, n]) => n.class_type === "SaveImage")![0];
      emit(p.clientId, "executed", { node: save, display_node: save, output: { images }, prompt_id: p.id });
      history.set(p.id, {
        prompt: queueItem(p),
        outputs: { [save]: { images } },
        status: {
          status_str: "success",
          completed: true,
          messages: [["execution_success", { prompt_id: p.id }]],
        },
        meta: {},
      });
      p.status = "success";
      p.endedAt = preciseNow();
      running = undefined;
      emit(p.clientId, "executing", { node: null, prompt_id: p.id });
      emit(p.clientId, "execution_success", { prompt_id: p.id, timestamp: Date.now() });
      next();
      queueUpdated();
    }, stepMs);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    if (req.method === "GET" && path === "/system_stats")
      return send(res, 200, {
        system: { os: "posix", comfyui_version: "0.3.99", python_version: "3.12" },
        devices: [
          {
            name: "cuda:0 NVIDIA Fake",
            type: "cuda",
            index: 0,
            vram_total: 24 * 1024 ** 3,
            vram_free: 20 * 1024 ** 3,
          },
        ],
      });
    if (req.method === "POST" && path === "/prompt") {
      fake.posted++;
      const json = JSON.parse((await body(req)).toString("utf8") || "{}") as {
        prompt?: Workflow;
        client_id?: string;
        extra_data?: Record<string, unknown>;
      };
      if (!json.prompt)
        return send(res, 400, {
          error: { type: "no_prompt", message: "No prompt provided", details: "" },
          node_errors: {},
        });
      const invalid = validate(json.prompt);
      if (invalid) return send(res, 400, { error: invalid.error, node_errors: invalid.nodeErrors });
      const p: FakeComfyPrompt = {
        id: randomUUID(),
        clientId: json.client_id ?? "",
        extraData: json.extra_data ?? {},
        prompt: json.prompt,
        number: number++,
        queuedAt: preciseNow(),
        status: "pending",
      };
      prompts.push(p);
      send(res, 200, { prompt_id: p.id, number: p.number, node_errors: {} });
      next();
      return queueUpdated();
    }
    if (req.method === "GET" && path === "/queue")
      return send(res, 200, {
        queue_running: running ? [queueItem(running)] : [],
        queue_pending: prompts.filter((p) => p.status === "pending").map(queueItem),
      });
    if (req.method === "POST" && path === "/queue") {
      const json = JSON.parse((await body(req)).toString("utf8") || "{}") as { delete?: string[] };
      for (const id of json.delete ?? []) {
        const p = prompts.find((x) => x.id === id && x.status === "pending");
        if (p) p.status = "deleted";
      }
      return res.writeHead(200).end();
    }
    if (req.method === "POST" && path === "/interrupt") {
      const json = JSON.parse((await body(req)).toString("utf8") || "{}") as { prompt_id?: string };
      // Since ComfyUI#9607 an interrupt may name its prompt: another prompt running is left alone.
      if (running && (!json.prompt_id || json.prompt_id === running.id)) {
        const p = running;
        interrupts.push(p.id);
        clearInterval(timer);
        p.status = "interrupted";
        p.endedAt = preciseNow();
        running = undefined;
        errorEntry(p, ["execution_interrupted", { prompt_id: p.id }]);
        emit(p.clientId, "execution_interrupted", { prompt_id: p.id });
        next();
        queueUpdated();
      }
      return res.writeHead(200).end();
    }
    if (req.method === "GET" && path === "/history") return send(res, 200, Object.fromEntries(history));
    const one = /^\/history\/([^/]+)$/.exec(path);
    if (req.method === "GET" && one) {
      const entry = history.get(decodeURIComponent(one[1]!));
      return send(res, 200, entry ? { [decodeURIComponent(one[1]!)]: entry } : {});
    }
    if (req.method === "GET" && path === "/view") {
      const file = files.get(url.searchParams.get("filename") ?? "");
      if (!file) return res.writeHead(404).end();
      return res
        .writeHead(200, { "content-type": "image/png", "content-length": String(file.length) })
        .end(file);
    }
    if (req.method === "POST" && path === "/upload/image") {
      const raw = await body(req);
      const form = await new Request("http://fake/", {
        method: "POST",
        headers: { "content-type": req.headers["content-type"] ?? "" },
        body: raw,
      }).formData();
      const image = form.get("image");
      if (!image || typeof image === "string") return res.writeHead(400).end();
      uploads.set(image.name, Buffer.from(await image.arrayBuffer()));
      return send(res, 200, { name: image.name, subfolder: "", type: "input" });
    }
    res.writeHead(404).end();
  }

  let server: Server | undefined;
  let wss: WebSocketServer | undefined;
  let port = options.port ?? 0;
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        handle(req, res).catch(() => res.writeHead(500).end());
      });
      wss = new WebSocketServer({ server, path: "/ws" });
      wss.on("connection", (ws, req) => {
        const clientId = new URL(req.url ?? "/", "http://fake").searchParams.get("clientId") ?? randomUUID();
        const set = sockets.get(clientId) ?? new Set<WebSocket>();
        set.add(ws);
        sockets.set(clientId, set);
        ws.on("close", () => set.delete(ws));
        ws.send(
          JSON.stringify({
            type: "status",
            data: {
              status: {
                exec_info: { queue_remaining: prompts.filter((p) => p.status === "pending").length },
              },
              sid: clientId,
            },
          }),
        );
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      for (const set of sockets.values()) for (const ws of set) ws.terminate();
      wss?.close();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    });
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    prompts,
    get posted() {
      return fake.posted;
    },
    interrupts,
    uploads,
    get maxConcurrent() {
      return fake.maxConcurrent;
    },
    loras: fake.loras,
    stop,
    start,
    close: async () => {
      clearInterval(timer);
      await stop();
    },
  };
}

/** A text-to-image workflow in ComfyUI's API format (SD 1.5's default graph), and its bindings. */
export const COMFY_TXT2IMG = {
  workflow: {
    "3": {
      class_type: "KSampler",
      inputs: {
        seed: 1,
        steps: 4,
        cfg: 7,
        sampler_name: "euler",
        scheduler: "normal",
        denoise: 1,
        model: ["4", 0],
        positive: ["6", 0],
        negative: ["7", 0],
        latent_image: ["5", 0],
      },
    },
    "4": { class_type: "CheckpointLoaderSimple", inputs: { ckpt_name: "v1-5-pruned-emaonly.safetensors" } },
    "5": { class_type: "EmptyLatentImage", inputs: { width: 512, height: 512, batch_size: 1 } },
    "6": { class_type: "CLIPTextEncode", inputs: { text: "a photo", clip: ["4", 1] } },
    "7": { class_type: "CLIPTextEncode", inputs: { text: "blurry", clip: ["4", 1] } },
    "8": { class_type: "VAEDecode", inputs: { samples: ["3", 0], vae: ["4", 2] } },
    "9": { class_type: "SaveImage", inputs: { filename_prefix: "ComfyUI", images: ["8", 0] } },
  },
  bindings: [
    { field: "prompt", node: "6", input: "text" },
    { field: "image_size", node: "5", input: { width: "width", height: "height" } },
    { field: "num_images", node: "5", input: "batch_size" },
    { field: "seed", node: "3", input: "seed" },
    { field: "steps", node: "3", input: "steps", description: "Sampler steps." },
  ],
};
