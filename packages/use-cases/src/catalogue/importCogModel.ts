// Importing a model served by a Cog server into the catalogue: the admin CLI's `models import` and
// the operator console's import both come here. The server's answers are never echoed back: an
// import says "not reachable" or "not a Cog server", so that it cannot be used to probe what else
// answers on the operators' network.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import got from "got";
import {
  catalogueEntrySchema,
  cogInputSchema,
  isMetadataAddress,
  lookupRefusing,
  MODEL_CATEGORIES,
  modelServerUrl,
  runnerForAudit,
  type CatalogueEntry,
  type ModelCategory,
} from "@svc/core";
import { appendAudit, findModel, findModelSettings, upsertModel, type Db } from "@svc/db";
import type { ActedBy } from "../operator/actedBy.js";

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

/** Why an import did not happen; `message` is for the operator and names nothing the server said. */
export class ImportRefused extends Error {
  constructor(
    readonly why: "exists" | "unreachable" | "not_cog" | "invalid",
    message: string,
  ) {
    super(message);
    this.name = "ImportRefused";
  }
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
  const server = modelServerUrl.safeParse(o.cog);
  if (!server.success) throw new ImportRefused("invalid", server.error.issues[0]!.message);
  const base = server.data.replace(/\/$/, "");
  await refuseMetadataHost(base);
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

/** A candidate catalogue entry, parsed, or the import refused naming its first problem. */
export function importedEntry(candidate: unknown): CatalogueEntry {
  const parsed = catalogueEntrySchema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ImportRefused("invalid", `${issue.path.join(".")}: ${issue.message}`);
}

/** An imported entry stored and audited in one transaction; an existing id is refused unless `replace`. */
export async function storeImportedModel(
  db: Db,
  by: ActedBy,
  entry: CatalogueEntry,
  replace: boolean,
): Promise<CatalogueEntry> {
  await db.$transaction(async (tx) => {
    const model = await findModelSettings(tx, entry.id);
    const before = model && {
      name: model.name,
      status: model.status,
      category: model.category,
      pricing: model.pricing,
      runner: runnerForAudit(model.runner),
    };
    if (before && !replace)
      throw new ImportRefused(
        "exists",
        `A model ${entry.id} exists already; import it under another id, or ask for it to be replaced.`,
      );
    await upsertModel(tx, entry);
    await appendAudit(tx, {
      actor: by.actor,
      action: "model.import",
      accountId: null,
      targetId: entry.id,
      before,
      after: {
        name: entry.name,
        status: entry.status,
        category: entry.category,
        pricing: entry.pricing,
        runner: runnerForAudit(entry.runner),
      },
      reason: by.reason,
    });
  });
  return entry;
}

const notCog = (base: string) =>
  new ImportRefused(
    "not_cog",
    `${base} did not answer as a Cog server (no model input schema at /openapi.json).`,
  );
const unreachable = (base: string) =>
  new ImportRefused("unreachable", `The Cog server at ${base} could not be reached.`);

/**
 * A host name that resolves to a link-local or metadata address is refused like such a literal.
 * One that does not resolve here is left to the fetch (a --like import fetches nothing: its
 * server may be known only on the workers' network).
 */
export async function refuseMetadataHost(base: string): Promise<void> {
  const host = new URL(base).hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  if (addresses.some((a) => isMetadataAddress(a.address)))
    throw new ImportRefused("invalid", "a model server cannot be at a link-local or cloud metadata address");
}

const OPENAPI_MAX_BYTES = 5 * 1024 * 1024;

/**
 * GET /openapi.json: no redirects (one could lead anywhere), metadata addresses refused again when
 * connecting (a name that resolves elsewhere now), 10 s and 5 MB at most.
 */
async function fetchCogOpenApi(base: string): Promise<unknown> {
  let body: string;
  try {
    const request = got(`${base}/openapi.json`, {
      dnsLookup: lookupRefusing(isMetadataAddress) as never,
      followRedirect: false,
      throwHttpErrors: false,
      timeout: { request: 10_000 },
      retry: { limit: 0 },
    });
    request.on("downloadProgress", (progress) => {
      if (progress.transferred > OPENAPI_MAX_BYTES) request.cancel();
    });
    const res = await request;
    if (res.statusCode !== 200) throw notCog(base);
    body = res.body;
  } catch (error) {
    if (error instanceof ImportRefused) throw error;
    throw unreachable(base);
  }
  try {
    return JSON.parse(body);
  } catch {
    throw notCog(base);
  }
}
