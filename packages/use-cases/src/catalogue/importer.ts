// What an import of any kind of model server is: the options every kind shares (the model's id,
// name, price, ...) and the kind's own, declared once as a schema. The operator route's body, the
// OpenAPI document, the console's import form (generated from that document) and the CLI's flags
// all come from these declarations, so a kind's option exists everywhere or nowhere.
import { z } from "zod";
import {
  MODEL_ID_PATTERN,
  MODEL_PRICE_MAX,
  type CatalogueEntry,
  type ModelCategory,
  type RunnerSettings,
} from "@svc/core";
import type { Db } from "@svc/db";
import type { ActedBy } from "../operator/actedBy.js";
import { importedEntry, storeImportedModel } from "./serverImport.js";

/** The options of every kind's import. */
export const importCommon = z.strictObject({
  id: z
    .string()
    .regex(MODEL_ID_PATTERN, "expected an id such as you/sdxl")
    .meta({ title: "Model id", description: "The model's id in the catalogue", examples: ["you/sdxl"] }),
  name: z.string().trim().min(1).max(200).optional().meta({ description: "Its name (default: the id)" }),
  description: z
    .string()
    .trim()
    .min(1)
    .max(2_000)
    .optional()
    .meta({ description: "Its public description (never the server's address)" }),
  tokens_per_unit: z
    .int("expected a whole number of tokens")
    .min(0)
    .max(MODEL_PRICE_MAX)
    .meta({ title: "Tokens per unit", description: "Its price: tokens per image, second or run" }),
  status: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .optional()
    .meta({ description: "active (the default) to run; any other status keeps it from running" }),
  replace: z.boolean().default(false).meta({ description: "Replace a model of this id (refused otherwise)" }),
});
export type ImportCommon = z.output<typeof importCommon>;

export interface ImportContext {
  db: Db;
  by: ActedBy;
  /** SECRETS_KEY: seals a server's API key (a kind whose servers take one). */
  secretsKey?: Buffer;
}

/** One kind's import: its options and what makes a catalogue entry of them. */
export interface Importer<Options extends z.ZodObject = z.ZodObject> {
  kind: RunnerSettings["kind"];
  /** The operator route's path under /operator/models (`import`, `import-openai`, ...). */
  path: string;
  summary: string;
  description: string;
  /** The kind's own options; the first names the server, and is the CLI's `--<kind>` flag. */
  options: Options;
  /** A request body for the documentation, the shared options included. */
  example: Record<string, unknown>;
  /** Options the CLI reads from a JSON file (their flag names the file). */
  jsonFiles?: readonly string[];
  /** Secret options the CLI reads from an environment variable (their flag, `--x-env`, names it). */
  secrets?: readonly string[];
  /** The model's entry from the options (its server asked as the kind needs); throws ImportRefused. */
  entry(o: ImportCommon & z.output<Options>, ctx: ImportContext): Promise<ImportedParts>;
}

/**
 * What a kind decides of its entry; the rest is every import's (importModel). Pricing and runner
 * are checked with the whole entry, so that a refusal names the first problem as the entry's.
 */
export interface ImportedParts {
  category: ModelCategory;
  pricing: Record<string, unknown>;
  runner: Record<string, unknown>;
  input_schema: CatalogueEntry["input_schema"];
}

/** The whole request body of a kind's import: the shared options and its own. */
export const importBody = (importer: Importer) => importer.options.extend(importCommon.shape);

/**
 * Imports a model: the options checked against the kind's declaration (a refusal names the first
 * problem), its entry made, stored and audited. Throws ImportRefused.
 */
export async function importModel(
  importer: Importer,
  o: ImportCommon & Record<string, unknown>,
  ctx: ImportContext,
): Promise<CatalogueEntry> {
  const parts = await importer.entry(o as never, ctx);
  const name = o.name ?? o.id;
  const entry = importedEntry({
    id: o.id,
    name,
    // Public: never the server's address, which is the operators' business.
    description: o.description ?? `${name}, a ${parts.category} model.`,
    outputs: [parts.category],
    status: o.status ?? "active",
    highlighted: false,
    listed: true,
    ...parts,
  });
  return storeImportedModel(ctx.db, ctx.by, entry, o.replace);
}
