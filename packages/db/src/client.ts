import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Db = PrismaClient;

export interface DbOptions {
  url: string;
  poolSize?: number;
}

/** A Prisma client on the pg driver adapter: no native engine, a bounded pool. */
export function createDb({ url, poolSize = 10 }: DbOptions): Db {
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 }),
  });
}
