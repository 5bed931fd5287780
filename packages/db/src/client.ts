import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Db = PrismaClient;

export interface DbOptions {
  url: string;
  poolSize?: number;
}

const pools = new WeakMap<Db, pg.Pool>();

/**
 * A Prisma client on the pg driver adapter: no native engine, a bounded pool. The run lifecycle's
 * hot path talks to the same pool directly (see runTransitions.ts); $disconnect() ends it.
 */
export function createDb({ url, poolSize = 10 }: DbOptions): Db {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle connection that breaks (database restarted) is dropped by the pool; without a
  // listener the error event would end the process.
  pool.on("error", () => {});
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

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
