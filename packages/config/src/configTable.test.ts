import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configurationMarkdown, parseEnvExample, schemaVariables } from "./configTable.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const envExample = readFileSync(`${root}.env.example`, "utf8");

describe("configuration documentation", () => {
  it("when .env.example is read, then it lists exactly the schemas' variables, each with a comment", () => {
    const documented = parseEnvExample(envExample);
    expect(documented.map((v) => v.name).sort()).toEqual([...new Set(documented.map((v) => v.name))].sort());
    expect(new Set(documented.map((v) => v.name))).toEqual(new Set(schemaVariables().keys()));
    expect(documented.filter((v) => !v.description)).toEqual([]);
  });

  it("when docs/configuration.md is compared with what the schemas generate, then it is current", () => {
    expect(readFileSync(`${root}docs/configuration.md`, "utf8")).toBe(configurationMarkdown(envExample));
  });
});
