// Importing a model served by a Cog server: its input schema from the server's /openapi.json, or
// another model's public schema translated by an input map (what every kind's import shares:
// importer.ts and serverImport.ts).
import { z } from "zod";
import {
  cogInputSchema,
  cogRunnerSchema,
  MODEL_CATEGORIES,
  MODEL_ID_PATTERN,
  modelServerUrl,
  type CatalogueEntry,
} from "@svc/core";
import { findModel } from "@svc/db";
import type { Importer } from "./importer.js";
import { getFromServer, ImportRefused, serverBase } from "./serverImport.js";

const options = z.strictObject({
  cog_url: modelServerUrl.meta({ title: "Cog server URL", examples: ["http://gpu-0:5000"] }),
  category: z.enum(MODEL_CATEGORIES).default("image").meta({ description: "What the model makes" }),
  unit: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .optional()
    .meta({ description: "What a unit of its price is (default: image for images, else run)" }),
  units_from: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "The input field that counts units (default for images: num_outputs)" }),
  like: z
    .string()
    .regex(MODEL_ID_PATTERN, "expected a model id")
    .optional()
    .meta({ description: "Front it with this model's public input schema (the server is not asked)" }),
  input_map: cogRunnerSchema.shape.input_map
    .optional()
    .meta({ description: "How that public input becomes the model's: { rename, expand }" }),
  // Synchronous unless told: the faster path for predictions of seconds; `async` survives a
  // worker's restart by re-attaching, worth it for predictions of minutes.
  predictions: z.enum(["sync", "async"]).default("sync").meta({
    description:
      "How a prediction's end comes back: sync (on its request, the fastest) or async (by webhook; a run taken over after a worker died re-attaches instead of starting again, for long predictions)",
  }),
});

export const cogImporter: Importer<typeof options> = {
  kind: "cog",
  path: "import",
  summary: "Import a model served by a Cog server: its input schema from the server's /openapi.json",
  description:
    "The server may be on a private network, but never at a link-local or cloud metadata address. Its answers are not echoed: the import says the server could not be reached, or did not answer as a Cog server. With `like`, the model takes that model's public input schema (translated by `input_map`) and the server is not asked. An id that exists already is 409 MODEL_EXISTS unless `replace` is true (the audit entry then holds the model replaced). The model's public description never names the server.",
  options,
  example: {
    cog_url: "http://gpu-0:5000",
    id: "you/sdxl",
    category: "image",
    tokens_per_unit: 5,
    reason: "new model for the spring launch",
  },
  jsonFiles: ["input_map"],
  async entry(o, { db }) {
    const base = await serverBase(o.cog_url);
    const likeModel = o.like ? await findModel(db, o.like) : null;
    if (o.like && !likeModel)
      throw new ImportRefused("invalid", `no model ${o.like} to take the input schema from`);
    const inputSchema = (likeModel?.inputSchema ??
      (await cogSchemaOf(base))) as CatalogueEntry["input_schema"];
    const unitsFrom =
      o.units_from ?? (o.category === "image" ? (likeModel ? "num_images" : "num_outputs") : undefined);
    return {
      category: o.category,
      pricing: {
        unit: o.unit ?? (o.category === "image" ? "image" : "run"),
        tokens_per_unit: o.tokens_per_unit,
        ...(unitsFrom &&
          Object.hasOwn(inputSchema.properties as object, unitsFrom) && { units_from: unitsFrom }),
      },
      runner: {
        kind: "cog",
        servers: [base],
        output: o.category,
        predictions: o.predictions,
        ...(o.input_map && { input_map: o.input_map }),
      },
      input_schema: inputSchema,
    };
  },
};

const notCog = (base: string) =>
  new ImportRefused(
    "not_served",
    `${base} did not answer as a Cog server (no model input schema at /openapi.json).`,
  );

/** The model's input schema from GET /openapi.json (serverImport's guarded request). */
async function cogSchemaOf(base: string): Promise<unknown> {
  const answer = await getFromServer(`${base}/openapi.json`);
  if (!answer) throw new ImportRefused("unreachable", `The Cog server at ${base} could not be reached.`);
  if (answer.status !== 200) throw notCog(base);
  try {
    return cogInputSchema(JSON.parse(answer.body));
  } catch {
    throw notCog(base);
  }
}
