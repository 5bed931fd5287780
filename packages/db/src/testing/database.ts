// Databases for tests, here beside the schema and the migration runner they are built with (the
// testkit re-exports them; this package's own tests use them without a package cycle).
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { promisify } from "node:util";
import pg from "pg";
import { newId } from "@svc/core";
import { createDb, type Db } from "../client.js";
import { repoPaths } from "../paths.js";
import type { RunRow } from "../repositories/runTransitions/insert.js";

// Every test file gets its own database, cloned from a template that the real migration runner
// built once for the current migrations (CREATE DATABASE … TEMPLATE takes ~40 ms here).
const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const MIGRATE_BIN = `${repoPaths.root}packages/db/dist/bin/migrate.js`;

export interface TestDatabase {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

function migrationsFingerprint(): string {
  const hash = createHash("sha256").update(readFileSync(repoPaths.schema));
  for (const dir of readdirSync(repoPaths.migrations).sort()) {
    const file = `${repoPaths.migrations}/${dir}/migration.sql`;
    if (existsSync(file)) hash.update(dir).update(readFileSync(file));
  }
  return hash.digest("hex").slice(0, 16);
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let templateName: Promise<string> | undefined;

async function buildTemplate(): Promise<string> {
  if (!existsSync(MIGRATE_BIN))
    throw new Error(`${MIGRATE_BIN} is missing: run \`pnpm build\` before the tests`);
  const name = `svc_tpl_${migrationsFingerprint()}`;
  return withAdmin(async (admin) => {
    // One builder at a time across jest workers and concurrent runs.
    await admin.query("SELECT pg_advisory_lock(727001)");
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (found.rowCount) return name;
      const building = `${name}_building`;
      await admin.query(`DROP DATABASE IF EXISTS ${building}`);
      await admin.query(`CREATE DATABASE ${building}`);
      await promisify(execFile)(
        process.execPath,
        ["--experimental-wasm-modules", "--no-warnings", MIGRATE_BIN],
        {
          env: { ...process.env, DATABASE_URL: urlFor(building) },
        },
      );
      // Renamed only once complete, so an interrupted build is never taken for a template.
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      return name;
    } finally {
      await admin.query("SELECT pg_advisory_unlock(727001)");
    }
  });
}

export async function createTestDatabase(): Promise<TestDatabase> {
  templateName ??= buildTemplate();
  const template = await templateName;
  const name = `svc_t_${randomBytes(6).toString("hex")}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = urlFor(name);
  const db = createDb({ url, poolSize: 5 });
  return {
    url,
    db,
    async drop() {
      await db.$disconnect();
      await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** A live acme/echo run of one unit reserving a token, for the creation statement (insertRuns). */
export function testRunRow(
  owner: { accountId: string; apiKeyId: string },
  fields: Partial<RunRow> = {},
): RunRow {
  return {
    id: newId("run"),
    ...owner,
    mode: "live",
    modelId: "acme/echo",
    input: { prompt: "hello" },
    webhookUrl: null,
    unitsRequested: 1,
    estimatedTokens: 1,
    reserve: 1,
    ledgerId: newId("led"),
    idempotencyKey: null,
    requestHash: null,
    webhookEvents: [],
    cancelAt: null,
    priority: "normal",
    ...fields,
  };
}
