// Importing a model served by a Cog server into the catalogue: the admin CLI's `models import` and
// the operator console's import both come here (what every kind's import shares: serverImport.ts).
import { cogInputSchema, MODEL_CATEGORIES, type CatalogueEntry, type ModelCategory } from "@svc/core";
import { findModel, type Db } from "@svc/db";
import type { ActedBy } from "../operator/actedBy.js";
import {
  getFromServer,
  ImportRefused,
  importedEntry,
  serverBase,
  storeImportedModel,
} from "./serverImport.js";

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
  /** Replace a model of this id that exists already (its price, servers and schema); refused otherwise. */
  replace?: boolean;
}

/** Fetches a Cog server's OpenAPI document (the import's only request); tests give a server of their own. */
export type FetchOpenApi = (baseUrl: string) => Promise<unknown>;

/**
 * A catalogue entry for a model served by a Cog server: its input schema from the server's
 * /openapi.json (or another model's public schema plus an input map), a cog runner and pricing,
 * stored and audited in one transaction. Throws ImportRefused.
 */
export async function importCogModel(
  db: Db,
  by: ActedBy,
  o: ImportOptions,
  fetchOpenApi: FetchOpenApi = fetchCogOpenApi,
): Promise<CatalogueEntry> {
  if (!MODEL_CATEGORIES.includes(o.category))
    throw new ImportRefused("invalid", `--category must be one of ${MODEL_CATEGORIES.join(", ")}`);
  const base = await serverBase(o.cog);
  const likeModel = o.like ? await findModel(db, o.like) : null;
  if (o.like && !likeModel)
    throw new ImportRefused("invalid", `no model ${o.like} to take the input schema from`);
  let inputSchema: CatalogueEntry["input_schema"];
  if (likeModel) inputSchema = likeModel.inputSchema as CatalogueEntry["input_schema"];
  else {
    const openapi = await fetchOpenApi(base);
    try {
      inputSchema = cogInputSchema(openapi) as CatalogueEntry["input_schema"];
    } catch {
      throw notCog(base);
    }
  }
  const unitsFrom =
    o.unitsFrom ?? (o.category === "image" ? (likeModel ? "num_images" : "num_outputs") : undefined);
  const name = o.name ?? o.id;
  const parsed = importedEntry({
    id: o.id,
    name,
    // Public: never the server's address, which is the operators' business.
    description: o.description ?? `${name}, a ${o.category} model.`,
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
    runner: {
      kind: "cog",
      servers: [base],
      output: o.category,
      ...(o.inputMap && { input_map: o.inputMap }),
    },
    input_schema: inputSchema,
  });
  return storeImportedModel(db, by, parsed, o.replace ?? false);
}

const notCog = (base: string) =>
  new ImportRefused(
    "not_served",
    `${base} did not answer as a Cog server (no model input schema at /openapi.json).`,
  );

/** GET /openapi.json (serverImport's guarded request). */
async function fetchCogOpenApi(base: string): Promise<unknown> {
  const answer = await getFromServer(`${base}/openapi.json`);
  if (!answer) throw new ImportRefused("unreachable", `The Cog server at ${base} could not be reached.`);
  if (answer.status !== 200) throw notCog(base);
  try {
    return JSON.parse(answer.body);
  } catch {
    throw notCog(base);
  }
}
