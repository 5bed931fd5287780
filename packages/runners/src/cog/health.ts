// Whether a Cog server takes runs: its /health-check says READY (idle) or BUSY (working at its
// limit); anything else (STARTING, SETUP_FAILED, DEFUNCT, UNHEALTHY, no answer) keeps its slots
// out of the pool, and its state is what operators see.
import type { ServerHealth } from "../registry.js";

export async function cogServerUp(server: string, timeoutMs: number): Promise<ServerHealth> {
  try {
    const res = await fetch(new URL("health-check", `${server}/`), {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { up: false, state: `HTTP ${res.status}` };
    }
    const status = ((await res.json()) as { status?: unknown } | null)?.status;
    const state = typeof status === "string" ? status.slice(0, 40) : "no status";
    return { up: state === "READY" || state === "BUSY", state };
  } catch {
    return { up: false, state: "no answer" };
  }
}
