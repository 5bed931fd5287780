import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SDK_TYPES_FILE, sdkTypes } from "./sdkTypes.js";

describe("the SDK's generated types", () => {
  it("when the routes' OpenAPI document generates the SDK's types, then they are the committed ones (else run pnpm sdk:types)", async () => {
    const committed = readFileSync(
      fileURLToPath(new URL(`../../../../${SDK_TYPES_FILE}`, import.meta.url)),
      "utf8",
    );
    expect(committed).toBe(await sdkTypes());
  });
});
