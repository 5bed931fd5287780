// What every kind's import shares (Cog, OpenAI-style servers, ComfyUI): the server's address
// checked, one guarded request to it, the entry parsed, stored and audited. The server's answers
// are never echoed back: an import says "not reachable" or "does not serve it", so that it cannot
// be used to probe what else answers on the operators' network.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { request } from "undici";
import {
  catalogueEntrySchema,
  isMetadataAddress,
  modelServerUrl,
  runnerForAudit,
  type CatalogueEntry,
} from "@svc/core";
import { serverAgent } from "@svc/net";
import { appendAudit, findModelSettings, upsertModel, type Db } from "@svc/db";
import type { ActedBy } from "../operator/actedBy.js";

/** Why an import did not happen; `message` is for the operator and names nothing the server said. */
export class ImportRefused extends Error {
  constructor(
    /** not_served: the server answered, but not as a server of the kind, or without the model. */
    readonly why: "exists" | "unreachable" | "not_served" | "invalid",
    message: string,
  ) {
    super(message);
    this.name = "ImportRefused";
  }
}

/**
 * An operator's server address, in its one spelling, refused when it is (or its name resolves to)
 * a link-local or metadata address. A name that does not resolve here is left to the request (an
 * import that fetches nothing may name a server known only on the workers' network).
 */
export async function serverBase(url: string): Promise<string> {
  const server = modelServerUrl.safeParse(url);
  if (!server.success) throw new ImportRefused("invalid", server.error.issues[0]!.message);
  const host = new URL(server.data).hostname.replace(/^\[|\]$/g, "");
  if (!isIP(host)) {
    const addresses = await lookup(host, { all: true }).catch(() => []);
    if (addresses.some((a) => isMetadataAddress(a.address)))
      throw new ImportRefused(
        "invalid",
        "a model server cannot be at a link-local or cloud metadata address",
      );
  }
  return server.data;
}

export interface ServerAnswer {
  status: number;
  body: string;
}

/** How large an answer an import reads (an OpenAPI document, a model list, system stats). */
const ANSWER_MAX_BYTES = 5 * 1024 * 1024;

/** Imports' connections: the model servers' agent of @svc/net (metadata addresses refused when connecting). */
const servers = serverAgent();

/**
 * The one request every import makes to an operator's server: GET, no redirects (one could lead
 * anywhere), metadata addresses refused again when connecting (a name that resolves elsewhere
 * now), 10 s and 5 MB at most. undefined when it could not be had at all.
 */
export async function getFromServer(
  url: string,
  headers: Record<string, string> = {},
): Promise<ServerAnswer | undefined> {
  try {
    const res = await request(url, {
      dispatcher: servers,
      headers,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
      signal: AbortSignal.timeout(10_000),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > ANSWER_MAX_BYTES) {
        res.body.destroy();
        return undefined;
      }
      chunks.push(chunk as Buffer);
    }
    return { status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") };
  } catch {
    return undefined;
  }
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
