import { Router } from "express";
import { z } from "zod";
import { ApiError, MODEL_CATEGORIES, presentModel, presentModelDetail } from "@svc/core";
import { findModel, listModels } from "@svc/db";
import type { AppDeps } from "../deps.js";
import { queryInt, validate } from "../http/validate.js";

export const MODELS_LIMIT_DEFAULT = 50;
export const MODELS_LIMIT_MAX = 200;

export const listModelsQuery = z.object({
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

/** A model id from the wildcard path segments, e.g. ["acme", "pixel", "fast"] -> "acme/pixel/fast". */
export function modelIdFrom(segments: string | string[] | undefined): string {
  return Array.isArray(segments) ? segments.join("/") : (segments ?? "");
}

export function modelRoutes({ db, realtime }: AppDeps): Router {
  const router = Router();

  router.get("/models", async (req, res) => {
    const query = validate(listModelsQuery, req.query, "query");
    const { models, total } = await listModels(db, {
      category: query.category,
      outputType: query.output_type,
      highlighted: query.highlighted,
      limit: query.limit,
      offset: query.offset,
    });
    res.json({ data: { models: models.map(presentModel), total, limit: query.limit, offset: query.offset } });
  });

  router.get("/models/*modelId", async (req, res) => {
    const id = modelIdFrom(req.params.modelId);
    const model = await findModel(db, id);
    if (!model) throw new ApiError("MODEL_NOT_FOUND", `No model with id ${JSON.stringify(id)}.`);
    // The queue's figures live in Redis: while it is away the model is still described.
    const queue = await realtime.queue.model(id).catch((error: unknown) => {
      realtime.logger.warn("model queue unavailable", { model_id: id, error: (error as Error).message });
      return undefined;
    });
    res.json({ data: presentModelDetail(model, queue) });
  });

  return router;
}
