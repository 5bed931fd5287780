import { loadBaseConfig } from "@svc/config";
import { applyMigrations, ensureDatabase } from "../migrate.js";

const { DATABASE_URL } = loadBaseConfig();
if (await ensureDatabase(DATABASE_URL)) console.log("created database");
const applied = await applyMigrations(DATABASE_URL);
console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
// The wasm engine leaves a timer behind that would hold the process for ~10 s.
process.exit(0);
