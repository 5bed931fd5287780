import type { ModelCategory, Pricing, RunnerSettings } from "@svc/core";
import { findMany, findOne, type Db } from "../client.js";
import { parseRunner, withCatalogueFields } from "./catalogueFields.js";
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
  return { models: models.map(withCatalogueFields), total };
}

/** Every model whatever its status or listing, typed (the operator's catalogue). */
export async function listAllModels(db: Db) {
  return (await db.model.findMany({ orderBy: { id: "asc" } })).map(withCatalogueFields);
}

/** Run creation and cancel ask this (behind a short cache), so it skips Prisma. Pricing and runner typed. */
export async function findModel(db: Db, id: string) {
  const row = await findOne<Model>(db, "models_by_id", "SELECT * FROM models WHERE id = $1", [id]);
  return row && withCatalogueFields(row);
}

/** The input schemas of the models that take runs, to compile their validators before serving. */
export async function activeInputSchemas(db: Db) {
  return findMany<{ id: string; updatedAt: Date; inputSchema: unknown }>(
    db,
    "models_active_schemas",
    "SELECT id, updated_at, input_schema FROM models WHERE status = 'active'",
    [],
  );
}

/**
 * Every model's runner, whatever its status (queued runs of a deprecated model still run); null
 * for a runner that does not parse (the model cannot run).
 */
export async function modelRunners(db: Db) {
  const rows = await findMany<{ id: string; runner: unknown }>(
    db,
    "models_runners",
    "SELECT id, runner FROM models",
    [],
  );
  return rows.map(({ id, runner }) => {
    try {
      return { id, runner: parseRunner(runner) };
    } catch {
      return { id, runner: null };
    }
  });
}

const MODEL_SETTINGS = {
  id: true,
  name: true,
  category: true,
  status: true,
  pricing: true,
  runner: true,
  maxQueue: true,
} as const;

/** What an operator may change of a model, as it is now (pricing and runner typed); null when unknown. */
export async function findModelSettings(tx: Db | Prisma.TransactionClient, id: string) {
  const row = await tx.model.findUnique({ where: { id }, select: MODEL_SETTINGS });
  return row && withCatalogueFields(row);
}

/** Changes a model's price, status, queue cap or runner, in the caller's transaction; the model now. */
export async function updateModelSettings(
  tx: Prisma.TransactionClient,
  id: string,
  change: { pricing?: Pricing; status?: string; maxQueue?: number | null; runner?: RunnerSettings },
) {
  const row = await tx.model.update({
    where: { id },
    data: {
      ...(change.pricing && { pricing: change.pricing as unknown as Prisma.InputJsonValue }),
      ...(change.status !== undefined && { status: change.status }),
      ...(change.maxQueue !== undefined && { maxQueue: change.maxQueue }),
      ...(change.runner && { runner: change.runner as unknown as Prisma.InputJsonValue }),
    },
    select: MODEL_SETTINGS,
  });
  return withCatalogueFields(row);
}

/** The ids of the models that make videos (whatever their status: old runs stay listed). */
export async function videoModelIds(db: Db): Promise<string[]> {
  const models = await db.model.findMany({ where: { outputsVideo: true }, select: { id: true } });
  return models.map((m) => m.id);
}
