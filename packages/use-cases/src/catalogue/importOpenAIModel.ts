// Importing a model served by OpenAI-style media servers (vLLM-Omni, SGLang, LocalAI) into the
// catalogue: the admin CLI's `models import --openai` and the operator console's import come here.
// As with Cog, the server's answers are never echoed: "not reachable", or "does not serve it".
import {
  OPENAI_SERVER_APIS,
  OPENAI_SERVER_OUTPUT,
  OPENAI_SERVER_PRICING,
  openAIServerInputSchema,
  sealSecret,
  type CatalogueEntry,
  type OpenAIServerApi,
} from "@svc/core";
import type { Db } from "@svc/db";
import type { ActedBy } from "../operator/actedBy.js";
import {
  getFromServer,
  ImportRefused,
  importedEntry,
  serverBase,
  storeImportedModel,
} from "./serverImport.js";

export interface OpenAIImportOptions {
  /** The server's base URL (without /v1). */
  server: string;
  /** The model's name there (its /v1/models id). */
  model: string;
  api: OpenAIServerApi;
  /** The servers' API key; sealed with SECRETS_KEY before it is stored. */
  apiKey?: string;
  id: string;
  name?: string;
  description?: string;
  price: number;
  status?: string;
  replace?: boolean;
}

/** Lists the models a server serves (GET /v1/models with the key); tests give a server of their own. */
export type ListServerModels = (base: string, apiKey?: string) => Promise<string[]>;

/**
 * A catalogue entry for a model on OpenAI-style servers: the public input of its API (core's
 * openAIServerInputSchema), priced per image, second of video or speech, its key sealed. The
 * server must list the model. Throws ImportRefused.
 */
export async function importOpenAIModel(
  db: Db,
  by: ActedBy,
  o: OpenAIImportOptions,
  secretsKey: Buffer | undefined,
  listModels: ListServerModels = listServerModels,
): Promise<CatalogueEntry> {
  if (!OPENAI_SERVER_APIS.includes(o.api))
    throw new ImportRefused("invalid", `the API must be one of ${OPENAI_SERVER_APIS.join(", ")}`);
  const base = (await serverBase(o.server)).replace(/\/v1$/, "");
  if (o.apiKey && !secretsKey)
    throw new ImportRefused("invalid", "SECRETS_KEY is needed to store the model's API key sealed.");
  const served = await listModels(base, o.apiKey);
  if (!served.includes(o.model))
    throw new ImportRefused(
      "not_served",
      `The server at ${base} does not serve ${o.model} (per its /v1/models).`,
    );
  const category = OPENAI_SERVER_OUTPUT[o.api];
  const name = o.name ?? o.id;
  const parsed = importedEntry({
    id: o.id,
    name,
    description: o.description ?? `${name}, a ${category} model.`,
    category,
    outputs: [category],
    status: o.status ?? "active",
    highlighted: false,
    listed: true,
    pricing: { ...OPENAI_SERVER_PRICING[o.api], tokens_per_unit: o.price },
    runner: {
      kind: "openai",
      servers: [base],
      model: o.model,
      api: o.api,
      ...(o.apiKey && secretsKey && { api_key_enc: sealSecret(secretsKey, o.apiKey) }),
    },
    input_schema: openAIServerInputSchema(o.api),
  });
  return storeImportedModel(db, by, parsed, o.replace ?? false);
}

/** GET /v1/models (serverImport's guarded request); "not reachable" for anything but a model list. */
async function listServerModels(base: string, apiKey?: string): Promise<string[]> {
  const answer = await getFromServer(
    `${base}/v1/models`,
    apiKey ? { authorization: `Bearer ${apiKey}` } : {},
  );
  let body: unknown;
  try {
    if (answer?.status !== 200) throw new Error(String(answer?.status));
    body = JSON.parse(answer.body);
  } catch {
    throw new ImportRefused("unreachable", `The server at ${base} could not be reached, or refused the key.`);
  }
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data.map((m) => String((m as { id?: unknown })?.id)) : [];
}
