import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { sdkFiles } from "./sdkTypes.js";

describe("the SDK's generated files", () => {
  it("when the routes' OpenAPI document generates the SDK's types and the console's import forms, then they are the committed ones (else run pnpm sdk:types)", async () => {
    const files = await sdkFiles();
    expect(Object.keys(files)).toHaveLength(2);
    for (const [file, text] of Object.entries(files)) {
      const committed = readFileSync(fileURLToPath(new URL(`../../../../${file}`, import.meta.url)), "utf8");
      expect(committed).toBe(text);
    }
  });
});
