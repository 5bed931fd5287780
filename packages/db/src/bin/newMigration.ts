// Usage: pnpm --filter @svc/db migration:new <name> [--from <git revision>]
// Writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL from the schema at the
// revision (default HEAD) to the working schema. Review it, add CHECKs Prisma cannot express, commit.
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { loadBaseConfig } from "@svc/config";
import { diffSchemas } from "../migrate.js";
import { repoPaths } from "../paths.js";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { from: { type: "string", default: "HEAD" } },
});
const name = positionals[0];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: migration:new <snake_case_name> [--from <git revision>]");
  process.exit(2);
}
const previous = execFileSync("git", ["show", `${values.from}:prisma/schema.prisma`], {
  cwd: repoPaths.root,
  encoding: "utf8",
});
const sql = await diffSchemas(loadBaseConfig().DATABASE_URL, previous);
if (!sql.trim()) {
  console.log("schema unchanged; nothing written");
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = `${repoPaths.migrations}/${stamp}_${name}`;
await mkdir(dir, { recursive: true });
await writeFile(`${dir}/migration.sql`, sql);
console.log(`wrote ${dir}/migration.sql`);
process.exit(0);
