// Whether a Cog server takes runs: its /health-check says READY (idle) or BUSY (working at its
// limit); anything else (SETUP, SETUP_FAILED, DEFUNCT, no answer) keeps its slots out of the pool.
export async function cogServerUp(server: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(new URL("health-check", `${server}/`), {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status !== 200) return false;
    const status = ((await res.json()) as { status?: unknown } | null)?.status;
    return status === "READY" || status === "BUSY";
  } catch {
    return false;
  }
}
