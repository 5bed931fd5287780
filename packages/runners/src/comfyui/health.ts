// Whether a ComfyUI server takes runs: /system_stats answers; its first device's free VRAM is
// the state operators see.
import type { ServerHealth } from "../registry.js";

export async function comfyServerUp(server: string, timeoutMs: number): Promise<ServerHealth> {
  try {
    const res = await fetch(new URL("system_stats", `${server}/`), {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { up: false, state: `HTTP ${res.status}` };
    }
    const stats = (await res.json()) as {
      devices?: { name?: string; vram_total?: number; vram_free?: number }[];
    };
    const gpu = stats.devices?.[0];
    const gb = (bytes: number | undefined) => ((bytes ?? 0) / 1024 ** 3).toFixed(1);
    return {
      up: true,
      state: gpu ? `READY, ${gb(gpu.vram_free)} of ${gb(gpu.vram_total)} GB VRAM free` : "READY",
    };
  } catch {
    return { up: false, state: "no answer" };
  }
}
