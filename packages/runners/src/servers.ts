// How every kind reaches its model servers: one agent per process (kept-alive sockets, link-local
// and metadata addresses refused when connecting, whatever a server's name resolves to later), and
// the one health probe the kinds' health checks read. (A Cog prediction is sent through @svc/net's
// sendServerWork instead: see there why.)
import { request } from "undici";
import { serverAgent } from "@svc/net";

export const modelServers = serverAgent();

/**
 * GET `path` on a server: its status and, for a 200, its JSON body (null when it is not JSON);
 * undefined when it did not answer within `timeoutMs`.
 */
export async function probeServer(
  server: string,
  path: string,
  timeoutMs: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown } | undefined> {
  try {
    const res = await request(new URL(path, `${server}/`), {
      dispatcher: modelServers,
      headers,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return { status: res.statusCode, json: null };
    }
    return { status: 200, json: await res.body.json().catch(() => null) };
  } catch {
    return undefined;
  }
}
