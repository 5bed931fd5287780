// Readying the transitions' prepared statements on a new process's connections.
import type pg from "pg";
import { keepsPreparedStatements } from "../../client.js";
import { insertRuns } from "./insert.js";
import { settleRuns } from "./settle.js";
import { startRuns } from "./start.js";

/** The lifecycle's statements, by the transition each applies. */
export type RunTransition = "insert" | "start" | "settle";

const WITH_NOTHING: Record<RunTransition, (client: pg.PoolClient) => Promise<unknown>> = {
  insert: (client) => insertRuns(client, []),
  start: (client) => startRuns(client, []),
  settle: (client) => settleRuns(client, []),
};

// Postgres plans a prepared statement afresh on each of its first five executions on a connection
// and then keeps a generic plan if that costs no more (plancache.c): the sixth plans no more.
const EXECUTIONS_UNTIL_PLANNED = 6;

/**
 * Opens `connections` connections of the pool and readies the transitions' statements on each,
 * which a new process would otherwise do in its first requests under load: a named statement is
 * parsed on a connection's first execution and planned again on each of the first five (per
 * statement and connection about 8 ms the first time, 1-1.5 ms the next four, 0.4 ms after that).
 * With empty batches they change nothing. Behind a transaction-mode pooler statements are not kept,
 * so the connections are only opened. A connection that could not be opened or readied is left to
 * requests; the first such error is thrown once the others are back in the pool.
 */
export async function primeRunTransitions(
  pool: pg.Pool,
  connections: number,
  transitions: readonly RunTransition[],
): Promise<void> {
  const opened = await Promise.allSettled(Array.from({ length: connections }, () => pool.connect()));
  const clients = opened.flatMap((c) => (c.status === "fulfilled" ? [c.value] : []));
  const statements = keepsPreparedStatements(pool) ? transitions : [];
  const readied = await Promise.allSettled(
    clients.map(async (client) => {
      try {
        for (const transition of statements)
          for (let i = 0; i < EXECUTIONS_UNTIL_PLANNED; i++) await WITH_NOTHING[transition](client);
        client.release();
      } catch (error) {
        // A connection that failed here is not given back to be reused.
        client.release(error as Error);
        throw error;
      }
    }),
  );
  const failed = [...opened, ...readied].find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}
