// The catalogue for its operator: every model with its queue, changing one, importing a model
// from any kind of model server (one route per kind, from the kind's declared import options).
import { z } from "zod";
import { ApiError, MODEL_PRICE_MAX, modelServerUrl, poolOf } from "@svc/core";
import {
  changeModel,
  findModel,
  importBody,
  type ImportCommon,
  type Importer,
  IMPORTERS,
  importModel,
  ImportRefused,
  listAllModels,
} from "@svc/use-cases";
import { route, type Route } from "../../http/route.js";
import { secretsKey } from "../../secrets.js";
import * as R from "../../openapi/consoleResponses.js";
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

/** An import refused, as the answer: 409 for an id taken, else a 400 naming the server's field. */
const importRefusal =
  (field: string) =>
  (error: unknown): never => {
    if (!(error instanceof ImportRefused)) throw error;
    if (error.why === "exists")
      throw new ApiError("MODEL_EXISTS", error.message, [{ path: "id", message: "exists" }]);
    throw new ApiError("VALIDATION_ERROR", error.message, [{ path: field, message: error.message }]);
  };

/** A kind's import route: its body is the kind's declared options (use-cases' importers) and a reason. */
const importRoute = (importer: Importer) =>
  route({
    method: "post",
    path: `/operator/models/${importer.path}`,
    guards: OPERATORS,
    summary: importer.summary,
    description: importer.description,
    body: { schema: importBody(importer).extend({ reason }), example: importer.example },
    errors: [400, 409],
    reply: { status: 201, schema: R.OperatorModels, description: "The model (a list of one)" },
    async handler({ body }, { res, deps }) {
      const { reason: why, ...options } = body as { reason: string } & ImportCommon;
      const serverField = Object.keys(importer.options.shape)[0]!;
      const entry = await importModel(importer, options, {
        db: deps.db,
        by: actedBy(res, why),
        secretsKey: secretsKey(deps),
      }).catch(importRefusal(serverField));
      return presentOne(deps, entry.id);
    },
  });

export const MODEL_ROUTES = [listOperatorModels, updateModel, ...IMPORTERS.map(importRoute)];
