// Whether a Cog server takes runs: its /health-check says READY (idle) or BUSY (working at its
// limit); anything else (STARTING, SETUP_FAILED, DEFUNCT, UNHEALTHY, no answer) keeps its slots
// out of the pool, and its state is what operators see.
import type { ServerHealth } from "../registry.js";
import { probeServer } from "../servers.js";

export async function cogServerUp(server: string, timeoutMs: number): Promise<ServerHealth> {
  const answer = await probeServer(server, "health-check", timeoutMs);
  if (!answer) return { up: false, state: "no answer" };
  if (answer.status !== 200) return { up: false, state: `HTTP ${answer.status}` };
  const status = (answer.json as { status?: unknown } | null)?.status;
  const state = typeof status === "string" ? status.slice(0, 40) : "no status";
  return { up: state === "READY" || state === "BUSY", state };
}
