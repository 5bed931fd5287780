// A package's build copies the files tsc does not emit (Lua scripts) from src/ to dist/, at the
// same relative paths, so that modules read them beside themselves. Usage: copy-assets.mjs .lua
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";

const extensions = process.argv.slice(2);
for (const entry of readdirSync("src", { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !extensions.some((ext) => entry.name.endsWith(ext))) continue;
  const from = join(entry.parentPath, entry.name);
  cpSync(from, join("dist", from.slice("src".length)));
}
