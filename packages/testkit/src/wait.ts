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

/** A TCP port on 127.0.0.1 that was free a moment ago (for a child process to listen on). */
export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}
