import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import type { BaseConfig } from "@svc/config";
import { PrismaClient } from "./generated/prisma/client.js";

export type Db = PrismaClient;

export interface DbOptions {
  url: string;
  poolSize?: number;
  /** "transaction": behind a transaction-mode pooler, where named statements cannot be kept. */
  pooling?: BaseConfig["DATABASE_POOLING"];
  /** An unused connection is closed after this long; 0 (the default) keeps it. */
  idleTimeoutMs?: number;
}

const pools = new WeakMap<Db, pg.Pool>();
/** Pools behind a transaction-mode pooler: their named statements go out unnamed. */
const unnamed = new WeakSet<pg.Pool>();

/**
 * A Prisma client on the pg driver adapter: no native engine, a bounded pool. The run lifecycle's
 * hot path talks to the same pool directly (see repositories/runTransitions/); $disconnect() ends it.
 */
export function createDb({ url, poolSize = 10, pooling = "session", idleTimeoutMs = 0 }: DbOptions): Db {
  // node-postgres closes a connection unused for 10 s by default: the connections readied at
  // start-up (prime.ts) were gone 10 s after it, and a quiet spell cost the next burst new
  // sessions that prepare and plan every statement again. Kept connections get TCP keepalives,
  // so that a path that drops quiet connections (NAT, firewalls) does not leave dead ones.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: idleTimeoutMs,
    keepAlive: true,
  });
  if (pooling === "transaction") sendUnprepared(pool);
  // An idle connection that breaks (database restarted) is dropped by the pool; without a
  // listener the error event would end the process.
  pool.on("error", () => {});
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

/** A process's client from its configuration: its URL, pool size and pooling mode. */
export const dbFromConfig = (config: BaseConfig, poolSize = config.DATABASE_POOL_SIZE): Db =>
  createDb({
    url: config.DATABASE_URL,
    poolSize,
    pooling: config.DATABASE_POOLING,
    idleTimeoutMs: config.DATABASE_IDLE_TIMEOUT_MS,
  });

/**
 * Behind a transaction-mode pooler each transaction may land on another server session, so a
 * statement prepared under a name on one is missing (or already there) on the next. The hot
 * path's queries keep their names (they say what a statement is, in logs and here) and are sent
 * as unnamed statements, which live within their own transaction. Prisma names none.
 */
function sendUnprepared(pool: pg.Pool): void {
  unnamed.add(pool);
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((config: unknown, ...rest: unknown[]) => {
    if (typeof config === "object" && config !== null && "name" in config) {
      const { name: _name, ...unnamed } = config as pg.QueryConfig;
      return query(unnamed, ...rest);
    }
    return query(config, ...rest);
  }) as typeof pool.query;
}

/** Whether the pool keeps named statements prepared on its connections (no transaction-mode pooler). */
export const keepsPreparedStatements = (pool: pg.Pool): boolean => !unnamed.has(pool);

/** The node-postgres pool under a client made by createDb. */
export function sqlPool(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("this client was not made by createDb");
  return pool;
}

/**
 * A row of node-postgres with its snake_case columns as the camelCase fields Prisma's models
 * use, for the reads that the request path makes without Prisma (its query engine costs CPU per
 * query and tens of MB once loaded).
 */
export function camelRow<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const key in row) out[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = row[key];
  return out as T;
}

/** The rows of a named statement on the pool, as camelCase fields. */
export async function findMany<T>(db: Db, name: string, text: string, values: unknown[]): Promise<T[]> {
  const { rows } = await sqlPool(db).query({ name, text, values });
  return rows.map((row: Record<string, unknown>) => camelRow<T>(row));
}

/** The first row of a named statement on the pool, as camelCase fields, or null. */
export async function findOne<T>(db: Db, name: string, text: string, values: unknown[]): Promise<T | null> {
  return (await findMany<T>(db, name, text, values))[0] ?? null;
}
