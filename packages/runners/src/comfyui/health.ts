// Whether a ComfyUI server takes runs: /system_stats answers; its first device's free VRAM is
// the state operators see.
import type { ServerHealth } from "../registry.js";
import { probeServer } from "../servers.js";

export async function comfyServerUp(server: string, timeoutMs: number): Promise<ServerHealth> {
  const answer = await probeServer(server, "system_stats", timeoutMs);
  if (!answer) return { up: false, state: "no answer" };
  if (answer.status !== 200) return { up: false, state: `HTTP ${answer.status}` };
  const stats = answer.json as { devices?: { vram_total?: number; vram_free?: number }[] } | null;
  const gpu = stats?.devices?.[0];
  const gb = (bytes: number | undefined) => ((bytes ?? 0) / 1024 ** 3).toFixed(1);
  return {
    up: true,
    state: gpu ? `READY, ${gb(gpu.vram_free)} of ${gb(gpu.vram_total)} GB VRAM free` : "READY",
  };
}
