// Importing a ComfyUI workflow as a model: the admin CLI's `models import --comfyui` and the
// operator console's import come here. The workflow (ComfyUI's API format) and its bindings are
// checked against each other; the server must answer /system_stats. As with Cog, the server's
// answers are never echoed.
import { comfyInputSchema, comfyUIRunnerSchema, type CatalogueEntry, type ModelCategory } from "@svc/core";
import type { Db } from "@svc/db";
import type { ActedBy } from "../operator/actedBy.js";
import {
  getFromServer,
  ImportRefused,
  importedEntry,
  serverBase,
  storeImportedModel,
} from "./serverImport.js";

export interface ComfyImportOptions {
  server: string;
  /** The workflow in ComfyUI's API format (node id -> { class_type, inputs }). */
  workflow: unknown;
  /** Model input field -> node input ({ field, node, input, file? }). */
  bindings: unknown;
  category?: ModelCategory;
  id: string;
  name?: string;
  description?: string;
  price: number;
  status?: string;
  replace?: boolean;
}

/** Whether a ComfyUI server answers (GET /system_stats); tests give a server of their own. */
export type ReachComfy = (base: string) => Promise<boolean>;

export async function importComfyModel(
  db: Db,
  by: ActedBy,
  o: ComfyImportOptions,
  reach: ReachComfy = reachComfy,
): Promise<CatalogueEntry> {
  const base = await serverBase(o.server);
  const category = o.category ?? "image";
  const runner = comfyUIRunnerSchema.safeParse({
    kind: "comfyui",
    servers: [base],
    output: category,
    workflow: o.workflow,
    bindings: o.bindings,
  });
  if (!runner.success) {
    const issue = runner.error.issues[0]!;
    throw new ImportRefused("invalid", `${issue.path.join(".") || "workflow"}: ${issue.message}`);
  }
  if (!(await reach(base)))
    throw new ImportRefused("unreachable", `The ComfyUI server at ${base} could not be reached.`);
  const inputSchema = comfyInputSchema(runner.data.workflow, runner.data.bindings);
  const name = o.name ?? o.id;
  const perImage = category === "image" && runner.data.bindings.some((b) => b.field === "num_images");
  const parsed = importedEntry({
    id: o.id,
    name,
    description: o.description ?? `${name}, a ${category} model.`,
    category,
    outputs: [category],
    status: o.status ?? "active",
    highlighted: false,
    listed: true,
    pricing: {
      unit: category === "image" ? "image" : "run",
      tokens_per_unit: o.price,
      ...(perImage && { units_from: "num_images" }),
    },
    runner: runner.data,
    input_schema: inputSchema,
  });
  return storeImportedModel(db, by, parsed, o.replace ?? false);
}

/** GET /system_stats (serverImport's guarded request) answers 200. */
async function reachComfy(base: string): Promise<boolean> {
  return (await getFromServer(`${base}/system_stats`))?.status === 200;
}
