// Reaching an operator's model servers: every kind's runner, health check and importer connects
// through serverAgent() (or, for a Cog prediction's request, serverWork.ts's agents, with the same
// lookup), so that no server address (or a name that resolves to one later) reaches a link-local
// or cloud metadata address, whatever kind of server it is.
import { Agent } from "undici";
import { serverLookup } from "./lookups.js";

/** An undici agent for model servers: kept-alive sockets, metadata addresses refused at connect. */
export function serverAgent(options: { keepAliveTimeoutMs?: number } = {}): Agent {
  return new Agent({
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    connect: { lookup: serverLookup as never },
  });
}
