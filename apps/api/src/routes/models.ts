import { z } from "zod";
import { ApiError, MODEL_CATEGORIES, poolOf, presentModel, presentModelDetail } from "@svc/core";
import { findModel, listModels } from "@svc/use-cases";
import { route, type Route } from "../http/route.js";
import { queryInt } from "../http/validate.js";
import { modelId } from "../http/params.js";
import * as R from "../openapi/responses.js";

const MODELS_LIMIT_DEFAULT = 50;
const MODELS_LIMIT_MAX = 200;

const listModelsQuery = z.object({
  category: z.enum(MODEL_CATEGORIES).optional(),
  output_type: z.enum(MODEL_CATEGORIES).optional(),
  highlighted: z
    .enum(["true", "false", "1", "0"], "expected true or false")
    .transform((v) => v === "true" || v === "1")
    .optional()
    .meta({ type: "boolean" }),
  limit: queryInt(1, MODELS_LIMIT_MAX, MODELS_LIMIT_DEFAULT),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0),
});

const listModelsRoute = route({
  method: "get",
  path: "/models",
  tags: ["Models"],
  summary: "List active models",
  query: listModelsQuery,
  reply: { status: 200, schema: R.ModelList, description: "A page of active models, ordered by id" },
  async handler({ query }, { deps: { db } }) {
    const { models, total } = await listModels(db, {
      category: query.category,
      outputType: query.output_type,
      highlighted: query.highlighted,
      limit: query.limit,
      offset: query.offset,
    });
    return { data: { models: models.map(presentModel), total, limit: query.limit, offset: query.offset } };
  },
});

const readModel = route({
  method: "get",
  path: "/models/{modelId+}",
  tags: ["Models"],
  summary: "Read one model with its input schema and pricing",
  description:
    "Also its queue now: runs waiting (queue_length), runs it can execute at once (capacity: its healthy model servers x their concurrency, or the workers' render threads) and runs executing (in_flight), and the median run time of its recent runs.",
  params: z.object({ modelId }),
  errors: [404],
  reply: { status: 200, schema: R.ModelResponse, description: "The model" },
  async handler({ params: { modelId: id } }, { deps: { db, realtime, settings } }) {
    const model = await findModel(db, id);
    if (!model) throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(id)}.`);
    // The queue's figures live in Redis: while it is away the model is still described.
    const pooled = poolOf(model.runner) !== null;
    const queue = await realtime.queue.model(id, pooled).catch((error: unknown) => {
      realtime.logger.warn("model queue unavailable", { model_id: id, error: (error as Error).message });
      return undefined;
    });
    return { data: presentModelDetail(model, queue, settings.BATCH_DISCOUNT_PERCENT) };
  },
});

export const modelRoutes: Route[] = [listModelsRoute, readModel];
