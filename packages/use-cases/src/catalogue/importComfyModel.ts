// Importing a ComfyUI workflow as a model: the admin CLI's `models import --comfyui` and the
// operator console's import come here. The workflow (ComfyUI's API format) and its bindings are
// checked against each other; the server must answer /system_stats. As with Cog, the server's
// answers are never echoed.
import {
  comfyInputSchema,
  comfyUIRunnerSchema,
  modelServerUrl,
  type CatalogueEntry,
  type ModelCategory,
} from "@svc/core";
import type { Db } from "@svc/db";
import type { ActedBy } from "../operator/actedBy.js";
import { ImportRefused, importedEntry, refuseMetadataHost, storeImportedModel } from "./importCogModel.js";

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
  const server = modelServerUrl.safeParse(o.server);
  if (!server.success) throw new ImportRefused("invalid", server.error.issues[0]!.message);
  const base = server.data.replace(/\/$/, "");
  await refuseMetadataHost(base);
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

async function reachComfy(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/system_stats`, {
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}
