import type { ModelCategory } from "@svc/core";
import { findMany, findOne, type Db } from "../client.js";
import type { Model, Prisma } from "../generated/prisma/client.js";

export interface ModelFilter {
  category?: ModelCategory;
  outputType?: ModelCategory;
  highlighted?: boolean;
  limit: number;
  offset: number;
}

const OUTPUT_COLUMN = { image: "outputsImage", video: "outputsVideo", audio: "outputsAudio" } as const;

/** Active, listed models only, ordered by id so that pages are stable. */
export async function listModels(db: Db, filter: ModelFilter) {
  const where: Prisma.ModelWhereInput = {
    status: "active",
    listed: true,
    ...(filter.category && { category: filter.category }),
    ...(filter.outputType && { [OUTPUT_COLUMN[filter.outputType]]: true }),
    ...(filter.highlighted !== undefined && { highlighted: filter.highlighted }),
  };
  const [models, total] = await Promise.all([
    db.model.findMany({ where, orderBy: { id: "asc" }, take: filter.limit, skip: filter.offset }),
    db.model.count({ where }),
  ]);
  return { models, total };
}

/** Run creation and cancel ask this (behind a short cache), so it skips Prisma. */
export function findModel(db: Db, id: string) {
  return findOne<Model>(db, "models_by_id", "SELECT * FROM models WHERE id = $1", [id]);
}

/** Every model's runner, whatever its status (queued runs of a deprecated model still run). */
export function modelRunners(db: Db) {
  return findMany<{ id: string; runner: unknown }>(db, "models_runners", "SELECT id, runner FROM models", []);
}
