import { randomUUID } from "node:crypto";
import pg from "pg";
import type { BaseConfig } from "@svc/config";

const PROBE_SETTING = "svc.session_probe";

/**
 * Whether the connections DATABASE_URL gives share server sessions: a pooler in transaction (or
 * statement) mode, where one client connection's statements may run on several server sessions
 * and several client connections on one. A session-level setting made on one connection is then
 * seen on another, or gone from its own by the next statement; with Postgres itself, or a pooler
 * in session mode, neither can happen. Two connections of their own (the process's pool may hold
 * one only); a few rounds, since a pooler may happen to keep a client on one session for a while.
 * Rejects when Postgres cannot be reached.
 */
export async function sharesServerSessions(url: string, rounds = 3): Promise<boolean> {
  const a = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  const b = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  // A connection that breaks is reported by the query that used it, not as an unhandled event.
  a.on("error", () => {});
  b.on("error", () => {});
  try {
    await Promise.all([a.connect(), b.connect()]);
    const read = async (client: pg.Client) =>
      (await client.query<{ v: string | null }>("SELECT current_setting($1, true) AS v", [PROBE_SETTING]))
        .rows[0]!.v;
    for (let round = 0; round < rounds; round++) {
      const marker = randomUUID();
      await a.query("SELECT set_config($1, $2, false)", [PROBE_SETTING, marker]);
      if ((await read(b)) === marker || (await read(a)) !== marker) return true;
    }
    return false;
  } finally {
    await Promise.allSettled([a.end(), b.end()]);
  }
}

/**
 * The one line a process refuses to start with when DATABASE_URL leads to a transaction-mode
 * pooler but DATABASE_POOLING says otherwise (the hot path's prepared statements would vanish
 * between transactions: about half of all requests would fail), or null when all is well.
 */
export async function poolingRefusal(
  config: Pick<BaseConfig, "DATABASE_URL" | "DATABASE_POOLING">,
): Promise<string | null> {
  if (config.DATABASE_POOLING === "transaction") return null;
  if (!(await sharesServerSessions(config.DATABASE_URL))) return null;
  return 'DATABASE_URL leads to a pooler in transaction mode (its connections share server sessions), but DATABASE_POOLING is "session": set DATABASE_POOLING=transaction (and DATABASE_DIRECT_URL for migrations); see docs/operating.md "Postgres behind a pooler".';
}

/**
 * poolingRefusal at start-up: `refuse` is called with its line when the setting is wrong. Resolves
 * once Postgres has answered, or at once when it cannot be reached now: the check is then made
 * again every `retryMs` in the background until Postgres answers (a process may start before it).
 */
export async function checkPooling(
  config: Pick<BaseConfig, "DATABASE_URL" | "DATABASE_POOLING">,
  refuse: (line: string) => void,
  retryMs = 5_000,
): Promise<void> {
  try {
    const line = await poolingRefusal(config);
    if (line) refuse(line);
  } catch {
    const timer = setTimeout(() => void checkPooling(config, refuse, retryMs), retryMs);
    timer.unref();
  }
}
