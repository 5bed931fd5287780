// Importing a model served by a Cog server into the catalogue: the admin CLI's `models import` and
// the operator console's import both come here.
import {
  catalogueEntrySchema,
  cogInputSchema,
  MODEL_CATEGORIES,
  type CatalogueEntry,
  type ModelCategory,
} from "@svc/core";
import { seedCatalogue, type Db } from "@svc/db";

export interface ImportOptions {
  cog: string;
  id: string;
  name?: string;
  description?: string;
  category: ModelCategory;
  price: number;
  unit?: string;
  unitsFrom?: string;
  /** Front the Cog model with the public input schema of this existing model (e.g. acme/pixel-hq)… */
  like?: string;
  /** …translated by this input map ({ rename, expand }). */
  inputMap?: Record<string, unknown>;
  status?: string;
}

/**
 * A catalogue entry for a model served by a Cog server: its input schema from the server's
 * /openapi.json (or another model's public schema plus an input map), a cog runner and pricing.
 */
export async function importCogModel(
  db: Db,
  o: ImportOptions,
  fetchJson = defaultFetchJson,
): Promise<CatalogueEntry> {
  if (!MODEL_CATEGORIES.includes(o.category))
    throw new Error(`--category must be one of ${MODEL_CATEGORIES.join(", ")}`);
  const base = o.cog.replace(/\/$/, "");
  const likeModel = o.like ? await db.model.findUnique({ where: { id: o.like } }) : null;
  if (o.like && !likeModel) throw new Error(`no model ${o.like} to take the input schema from`);
  const inputSchema = likeModel
    ? (likeModel.inputSchema as CatalogueEntry["input_schema"])
    : cogInputSchema(await fetchJson(`${base}/openapi.json`));
  const inputMap = o.inputMap;
  const unitsFrom =
    o.unitsFrom ?? (o.category === "image" ? (likeModel ? "num_images" : "num_outputs") : undefined);
  const entry = catalogueEntrySchema.parse({
    id: o.id,
    name: o.name ?? o.id,
    description: o.description ?? `Served by the Cog server at ${base}.`,
    category: o.category,
    outputs: [o.category],
    status: o.status ?? "active",
    highlighted: false,
    listed: true,
    pricing: {
      unit: o.unit ?? (o.category === "image" ? "image" : "run"),
      tokens_per_unit: o.price,
      ...(unitsFrom &&
        Object.hasOwn(inputSchema.properties as object, unitsFrom) && { units_from: unitsFrom }),
    },
    runner: { kind: "cog", servers: [base], output: o.category, ...(inputMap && { input_map: inputMap }) },
    input_schema: inputSchema,
  });
  await seedCatalogue(db, [entry]);
  return entry;
}

async function defaultFetchJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return res.json();
}
