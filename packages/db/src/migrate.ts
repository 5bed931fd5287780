// Applies prisma/migrations with Prisma's WebAssembly schema engine through the pg adapter, which
// records them in _prisma_migrations exactly as `prisma migrate deploy` does, without the native
// engine download that this project cannot rely on. Needs node --experimental-wasm-modules.
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { repoPaths } from "./paths.js";

const NO_FILTERS = { externalTables: [], externalEnums: [] };

type Engine = Awaited<ReturnType<(typeof import("@prisma/schema-engine-wasm"))["SchemaEngine"]["new"]>>;

/** Runs fn with an engine on a pool of our own, ended afterwards so that the process can exit. */
async function withEngine<T>(
  url: string,
  schemaPath: string,
  fn: (engine: Engine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await import("@prisma/schema-engine-wasm");
  const schemaText = await readFile(schemaPath, "utf8");
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg(pool));
    return await fn(await SchemaEngine.new({ datamodels: [[schemaPath, schemaText]] }, () => {}, adapter));
  } finally {
    await pool.end();
  }
}

/** Creates the database named in the URL when it does not exist yet (connects to `postgres`). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount) return false;
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    return true;
  } finally {
    await client.end();
  }
}

export async function applyMigrations(
  url: string,
  dir = repoPaths.migrations,
  schemaPath = repoPaths.schema,
): Promise<string[]> {
  const names: string[] = [];
  for (const entry of (await readdir(dir)).sort()) {
    if ((await stat(join(dir, entry))).isDirectory()) names.push(entry);
  }
  const migrationDirectories = await Promise.all(
    names.map(async (name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok" as const, value: await readFile(join(dir, name, "migration.sql"), "utf8") },
      },
    })),
  );
  const lockfile = {
    path: "migration_lock.toml",
    content: await readFile(join(dir, "migration_lock.toml"), "utf8"),
  };
  const result = await withEngine(url, schemaPath, (engine) =>
    engine.applyMigrations({
      migrationsList: {
        baseDir: dir,
        lockfile,
        shadowDbInitScript: "",
        migrationDirectories,
      },
      filters: NO_FILTERS,
    }),
  );
  return result.appliedMigrationNames;
}

/** SQL that takes a database from one schema.prisma text to another, for writing a new migration. */
export async function diffSchemas(
  url: string,
  fromSchema: string | null,
  toSchemaPath = repoPaths.schema,
): Promise<string> {
  const to = await readFile(toSchemaPath, "utf8");
  const result = await withEngine(url, toSchemaPath, (engine) =>
    engine.diff({
      from:
        fromSchema === null
          ? { tag: "empty" }
          : { tag: "schemaDatamodel", files: [{ path: "previous.prisma", content: fromSchema }] },
      to: { tag: "schemaDatamodel", files: [{ path: toSchemaPath, content: to }] },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    }),
  );
  return result.stdout ?? "";
}
