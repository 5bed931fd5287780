import { readFile } from "node:fs/promises";
import { catalogueSchema, type CatalogueEntry } from "@svc/core";
import type { Db } from "./client.js";
import type { Prisma } from "./generated/prisma/client.js";
import { repoPaths } from "./paths.js";

export async function loadCatalogue(path = repoPaths.catalogue): Promise<CatalogueEntry[]> {
  const parsed = catalogueSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  - ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid catalogue ${path}:\n${problems}`);
  }
  return parsed.data.models;
}

function columns(entry: CatalogueEntry) {
  return {
    name: entry.name,
    description: entry.description,
    category: entry.category,
    outputsImage: entry.outputs.includes("image"),
    outputsVideo: entry.outputs.includes("video"),
    outputsAudio: entry.outputs.includes("audio"),
    status: entry.status,
    highlighted: entry.highlighted,
    listed: entry.listed,
    inputSchema: entry.input_schema as Prisma.InputJsonObject,
    pricing: entry.pricing as Prisma.InputJsonObject,
    runner: entry.runner as Prisma.InputJsonObject,
    executionTimeoutMs: entry.execution_timeout_ms,
    maxQueue: entry.max_queue ?? null,
  };
}

/** Creates or replaces one model (in the caller's transaction, for an import). */
export function upsertModel(db: Db | Prisma.TransactionClient, entry: CatalogueEntry) {
  return db.model.upsert({
    where: { id: entry.id },
    create: { id: entry.id, ...columns(entry) },
    update: columns(entry),
  });
}

/** Upserts every entry: running it again changes nothing, editing the file updates the models. */
export async function seedCatalogue(db: Db, entries: CatalogueEntry[]): Promise<number> {
  await db.$transaction(entries.map((entry) => upsertModel(db, entry)));
  return entries.length;
}
