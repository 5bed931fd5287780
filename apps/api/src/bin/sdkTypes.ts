// Writes the SDK's generated files (packages/sdk/src/generated/) from this API's document.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { sdkFiles } from "../openapi/sdkTypes.js";

for (const [file, text] of Object.entries(await sdkFiles())) {
  const path = fileURLToPath(new URL(`../../../../${file}`, import.meta.url));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`wrote ${file}`);
}
