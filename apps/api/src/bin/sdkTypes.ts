// Writes the SDK's generated types (packages/sdk/src/generated/openapi.ts) from this API's document.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { SDK_TYPES_FILE, sdkTypes } from "../openapi/sdkTypes.js";

const path = fileURLToPath(new URL(`../../../../${SDK_TYPES_FILE}`, import.meta.url));
mkdirSync(dirname(path), { recursive: true });
writeFileSync(path, await sdkTypes());
console.log(`wrote ${SDK_TYPES_FILE}`);
