/** Polls fn until it returns something truthy, or fails with the last value after timeoutMs. */
export async function waitFor<T>(
  fn: () => Promise<T>,
  { timeoutMs = 20_000, intervalMs = 50, what = "condition" } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last as NonNullable<T>;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
}

/**
 * Where freePort looks: below the kernel's range for outgoing connections' local ports, so that a
 * port it hands out cannot meanwhile become one end of some parallel test's connection to
 * Postgres or Redis (held for the rest of that test: a child process told to listen there failed
 * with EADDRINUSE five times over). From 20000 up, clear of the usual services' ports.
 */
const LISTEN_PORTS = { low: 20_000, high: 32_767 };

async function listenRange(): Promise<{ low: number; high: number } | null> {
  const { readFile } = await import("node:fs/promises");
  const ephemeralLow = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").then(
    (text) => Number(text.trim().split(/\s+/)[0]),
    () => 32_768,
  );
  const high = Math.min(LISTEN_PORTS.high, ephemeralLow - 1);
  return high - LISTEN_PORTS.low >= 1_000 ? { low: LISTEN_PORTS.low, high } : null;
}

/** Whether something may listen on this port of 127.0.0.1 now (0: the kernel's choice); the port bound. */
async function bindable(wanted: number): Promise<number | null> {
  const { createServer } = await import("node:net");
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(wanted, "127.0.0.1", () => resolve(true));
  });
  if (!bound) return null;
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** True when something may listen on this port of 127.0.0.1 now; null otherwise (waitFor's "not yet"). */
export const portFree = async (port: number): Promise<true | null> =>
  (await bindable(port)) === null ? null : true;

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (for a child process to listen on). With
 * `alsoFree`, the port that far above it was free too, and as clear of outgoing connections: a
 * Redis Cluster node listens on its port + 10000 as well (its cluster bus).
 */
export async function freePort({ alsoFree = 0 } = {}): Promise<number> {
  const range = await listenRange();
  const high = range ? range.high - alsoFree : 0;
  for (let attempt = 0; ; attempt++) {
    // Randomly within the range (parallel test files pick at once); the kernel's choice (0) when
    // the machine leaves no room below its ephemeral range, or nothing there is free.
    const wanted =
      range && high > range.low && attempt < 50
        ? range.low + Math.floor(Math.random() * (high - range.low + 1))
        : 0;
    const port = await bindable(wanted);
    if (port === null) continue;
    if (alsoFree && (await bindable(port + alsoFree)) === null) continue;
    return port;
  }
}
