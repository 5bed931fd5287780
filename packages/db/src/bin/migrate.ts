import { loadBaseConfig } from "@svc/config";
import { applyMigrations, ensureDatabase } from "../migrate.js";

// Migrations hold a session (the engine's lock and its statements): never through a
// transaction-mode pooler.
const { DATABASE_URL, DATABASE_DIRECT_URL } = loadBaseConfig();
const url = DATABASE_DIRECT_URL ?? DATABASE_URL;
if (await ensureDatabase(url)) console.log("created database");
const applied = await applyMigrations(url);
console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
// The wasm engine leaves a timer behind that would hold the process for ~10 s.
process.exit(0);
