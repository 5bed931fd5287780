// The catalogue for its operator: every model with its queue, changing one, importing a model
// from a Cog server or from OpenAI-style media servers.
import { z } from "zod";
import {
  ApiError,
  MODEL_CATEGORIES,
  MODEL_PRICE_MAX,
  modelServerUrl,
  OPENAI_SERVER_APIS,
  poolOf,
} from "@svc/core";
import { findModel, listAllModels } from "@svc/db";
import {
  changeModel,
  importCogModel,
  importComfyModel,
  importOpenAIModel,
  ImportRefused,
} from "@svc/use-cases";
import { route, type Route } from "../../http/route.js";
import { secretsKey } from "../../secrets.js";
import * as R from "../../openapi/responses.js";
import { modelId } from "../../http/params.js";
import { actedBy, OPERATORS, reason, tokensField } from "./guards.js";

/** A model's pool of servers, if it runs on model servers. */
const serversPool = (runner: CatalogueModel["runner"]) => {
  const pool = poolOf(runner);
  return pool?.kind === "servers" ? pool : null;
};

type CatalogueModel = Awaited<ReturnType<typeof listAllModels>>[number];

/** A model as the operator's catalogue shows it; queue: its pool now (null: unlimited, or Redis away). */
const presentOperatorModel = (m: CatalogueModel, queue: Awaited<ReturnType<typeof poolHealth>> | null) => ({
  id: m.id,
  name: m.name,
  category: m.category,
  status: m.status,
  unit: m.pricing.unit,
  tokens_per_unit: m.pricing.tokens_per_unit,
  runner: m.runner.kind,
  servers: m.runner.kind === "builtin" ? [] : m.runner.servers,
  concurrency: serversPool(m.runner)?.concurrency ?? null,
  max_queue: m.maxQueue,
  queue,
});

const listOperatorModels = route({
  method: "get",
  path: "/operator/models",
  guards: OPERATORS,
  summary: "The whole catalogue, whatever the status, with each limited model's queue health",
  reply: { status: 200, schema: R.OperatorModels, description: "Models" },
  async handler(_input, { deps }) {
    const models = await listAllModels(deps.db);
    return {
      data: {
        models: await Promise.all(
          models.map(async (m) =>
            presentOperatorModel(m, poolOf(m.runner) ? await poolHealth(deps, m.id).catch(() => null) : null),
          ),
        ),
      },
    };
  },
});

async function poolHealth(deps: Parameters<Route["serve"]>[0], pool: string) {
  const [stats, health] = await Promise.all([deps.scheduler.stats(pool), deps.scheduler.health(pool)]);
  return {
    capacity: stats.capacity,
    in_flight: stats.leased,
    queue_length: stats.queued,
    oldest_queued_at: stats.oldestQueuedAt?.toISOString() ?? null,
    servers_down: Object.entries(health)
      .filter(([, state]) => state !== "up")
      .map(([server]) => server),
    // Each server as the pool monitor last saw it, a down one with its own state.
    servers: Object.entries(health).map(([url, value]) => {
      const [seen, state] = value.split("\t");
      return { url, up: seen === "up", state: seen === "up" ? "READY" : (state ?? "down") };
    }),
  };
}

const updateModel = route({
  method: "patch",
  path: "/operator/models/{modelId+}",
  guards: OPERATORS,
  summary: "Change a model's price, status, queue cap, or a Cog model's servers and concurrency",
  description:
    "New runs are priced and admitted by it within CATALOGUE_CACHE_TTL_MS; capacity follows at the pool monitor's next pass. Runs already made keep the price they reserved.",
  params: z.object({ modelId }),
  body: {
    schema: z
      .strictObject({
        tokens_per_unit: tokensField.min(0).max(MODEL_PRICE_MAX).optional(),
        status: z
          .string()
          .trim()
          .regex(/^[a-z][a-z_-]{0,31}$/, "expected a status such as active or deprecated")
          .optional(),
        max_queue: z.int().min(1).max(10_000_000).nullable().optional(),
        servers: z.array(modelServerUrl).min(1).max(100).optional(),
        concurrency: z.int().min(1).max(1000).optional(),
        reason,
      })
      .refine(
        ({ reason: _, ...change }) => Object.values(change).some((v) => v !== undefined),
        "expected a change",
      ),
    example: {
      tokens_per_unit: 6,
      servers: ["http://gpu-0:5000", "http://gpu-1:5000"],
      reason: "second GPU online",
    },
  },
  errors: [400, 404],
  reply: { status: 200, schema: R.OperatorModels, description: "The model now (a list of one)" },
  async handler({ params, body }, { res, deps }) {
    const result = await changeModel(deps.db, actedBy(res, body.reason), params.modelId, {
      ...(body.tokens_per_unit !== undefined && { tokensPerUnit: body.tokens_per_unit }),
      ...(body.status !== undefined && { status: body.status }),
      ...(body.max_queue !== undefined && { maxQueue: body.max_queue }),
      ...(body.servers !== undefined && { servers: body.servers }),
      ...(body.concurrency !== undefined && { concurrency: body.concurrency }),
    });
    if (result.kind === "not_found")
      throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(params.modelId)}.`);
    if (result.kind === "invalid")
      throw new ApiError("VALIDATION_ERROR", result.message, [{ path: "servers", message: result.message }]);
    return presentOne(deps, params.modelId);
  },
});

/** One model, as a list of one: what a change or an import answers. */
async function presentOne(deps: Parameters<Route["serve"]>[0], id: string) {
  return { data: { models: [presentOperatorModel((await findModel(deps.db, id))!, null)] } };
}

const importModel = route({
  method: "post",
  path: "/operator/models/import",
  guards: OPERATORS,
  summary: "Import a model served by a Cog server: its input schema from the server's /openapi.json",
  description:
    "The server may be on a private network, but never at a link-local or cloud metadata address. Its answers are not echoed: the import says the server could not be reached, or did not answer as a Cog server. An id that exists already is 409 MODEL_EXISTS unless `replace` is true (the audit entry then holds the model replaced). The model's public description never names the server.",
  body: {
    schema: z.strictObject({
      cog_url: modelServerUrl,
      id: z
        .string()
        .regex(/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/, "expected an id such as you/sdxl"),
      name: z.string().trim().min(1).max(200).optional(),
      category: z.enum(MODEL_CATEGORIES).default("image"),
      tokens_per_unit: tokensField.min(0).max(MODEL_PRICE_MAX),
      replace: z.boolean().default(false),
      reason,
    }),
    example: {
      cog_url: "http://gpu-0:5000",
      id: "you/sdxl",
      category: "image",
      tokens_per_unit: 5,
      reason: "new model for the spring launch",
    },
  },
  errors: [400, 409],
  reply: { status: 201, schema: R.OperatorModels, description: "The model (a list of one)" },
  async handler({ body }, { res, deps }) {
    const entry = await importCogModel(deps.db, actedBy(res, body.reason), {
      cog: body.cog_url,
      id: body.id,
      ...(body.name && { name: body.name }),
      category: body.category,
      price: body.tokens_per_unit,
      replace: body.replace,
    }).catch(importRefusal("cog_url"));
    return presentOne(deps, entry.id);
  },
});

/** An import refused, as the answer: 409 for an id taken, else a 400 naming the server's field. */
const importRefusal =
  (field: string) =>
  (error: unknown): never => {
    if (!(error instanceof ImportRefused)) throw error;
    if (error.why === "exists")
      throw new ApiError("MODEL_EXISTS", error.message, [{ path: "id", message: "exists" }]);
    throw new ApiError("VALIDATION_ERROR", error.message, [{ path: field, message: error.message }]);
  };

const importOpenAIServerModel = route({
  method: "post",
  path: "/operator/models/import-openai",
  guards: OPERATORS,
  summary: "Import a model served by OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI)",
  description:
    "The server must list the model at /v1/models (with the key, if one is given); its answers are not echoed. The model takes its API's public input (images: prompt, image_size, num_images, seed; videos: prompt, duration_seconds, video_size, first_frame; speech: prompt, voice, format) and is priced per image, second of video or speech. The key is stored sealed with SECRETS_KEY and never shown again. An id that exists already is 409 MODEL_EXISTS unless `replace` is true.",
  body: {
    schema: z.strictObject({
      server_url: modelServerUrl,
      model: z.string().trim().min(1).max(300),
      api: z.enum(OPENAI_SERVER_APIS),
      api_key: z.string().min(1).max(500).optional(),
      id: z
        .string()
        .regex(/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/, "expected an id such as you/qwen-image"),
      name: z.string().trim().min(1).max(200).optional(),
      tokens_per_unit: tokensField.min(0).max(MODEL_PRICE_MAX),
      replace: z.boolean().default(false),
      reason,
    }),
    example: {
      server_url: "http://gpu-1:8091",
      model: "Qwen/Qwen-Image",
      api: "images",
      id: "you/qwen-image",
      tokens_per_unit: 4,
      reason: "Qwen-Image on the new GPUs",
    },
  },
  errors: [400, 409],
  reply: { status: 201, schema: R.OperatorModels, description: "The model (a list of one)" },
  async handler({ body }, { res, deps }) {
    const entry = await importOpenAIModel(
      deps.db,
      actedBy(res, body.reason),
      {
        server: body.server_url,
        model: body.model,
        api: body.api,
        ...(body.api_key && { apiKey: body.api_key }),
        id: body.id,
        ...(body.name && { name: body.name }),
        price: body.tokens_per_unit,
        replace: body.replace,
      },
      secretsKey(deps),
    ).catch(importRefusal("server_url"));
    return presentOne(deps, entry.id);
  },
});

const importComfyUIModel = route({
  method: "post",
  path: "/operator/models/import-comfyui",
  guards: OPERATORS,
  summary: "Import a ComfyUI workflow as a model: its input fields are its bindings",
  description:
    "`workflow` is ComfyUI's API format (node id -> { class_type, inputs }, what Export (API) saves); `bindings` map the model's input fields to node inputs ({ field, node, input } — input may be { width, height } for image_size — and file: true for an image uploaded with /upload/image). Bindings must name nodes and inputs the workflow has; the server must answer /system_stats. An id that exists already is 409 MODEL_EXISTS unless `replace` is true.",
  body: {
    schema: z.strictObject({
      server_url: modelServerUrl,
      workflow: z.record(z.string(), z.unknown()),
      bindings: z.array(z.record(z.string(), z.unknown())).min(1).max(50),
      category: z.enum(MODEL_CATEGORIES).default("image"),
      id: z
        .string()
        .regex(/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)+$/, "expected an id such as you/sdxl-comfy"),
      name: z.string().trim().min(1).max(200).optional(),
      tokens_per_unit: tokensField.min(0).max(MODEL_PRICE_MAX),
      replace: z.boolean().default(false),
      reason,
    }),
    example: {
      server_url: "http://gpu-2:8188",
      workflow: { "6": { class_type: "CLIPTextEncode", inputs: { text: "a photo", clip: ["4", 1] } } },
      bindings: [{ field: "prompt", node: "6", input: "text" }],
      id: "you/sd15-comfy",
      tokens_per_unit: 2,
      reason: "our SD 1.5 workflow",
    },
  },
  errors: [400, 409],
  reply: { status: 201, schema: R.OperatorModels, description: "The model (a list of one)" },
  async handler({ body }, { res, deps }) {
    const entry = await importComfyModel(deps.db, actedBy(res, body.reason), {
      server: body.server_url,
      workflow: body.workflow,
      bindings: body.bindings,
      category: body.category,
      id: body.id,
      ...(body.name && { name: body.name }),
      price: body.tokens_per_unit,
      replace: body.replace,
    }).catch(importRefusal("server_url"));
    return presentOne(deps, entry.id);
  },
});

export const MODEL_ROUTES = [
  listOperatorModels,
  updateModel,
  importModel,
  importOpenAIServerModel,
  importComfyUIModel,
];
