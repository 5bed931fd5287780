import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configurationMarkdown, envExample, schemaVariables } from "./configTable.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

describe("configuration documentation, generated from the schemas", () => {
  it("when docs/configuration.md is compared with what the schemas generate, then it is the same, byte for byte", () => {
    expect(readFileSync(`${root}docs/configuration.md`, "utf8")).toBe(configurationMarkdown());
  });

  it("when .env.example is compared with what the schemas generate, then it is the same, byte for byte", () => {
    expect(readFileSync(`${root}.env.example`, "utf8")).toBe(envExample());
  });

  it("when a variable is documented, then its row names it, its own description, default and readers", () => {
    const rows = configurationMarkdown().split("\n");
    const row = (name: string) => rows.find((r) => r.startsWith(`| \`${name}\` |`));
    // Once documented as the rate limit, by a comment that had moved: each variable says its own.
    expect(row("ADMIN_PASSWORD")).toMatch(/queue dashboard/);
    expect(row("RATE_LIMIT_PER_MINUTE")).toMatch(/\| 600 \| api \| Requests per API key/);
    expect(row("SHUTDOWN_GRACE_MS")).toMatch(/10000 \(api\) \/ 30000 \(worker\)/);
    expect(row("DATABASE_URL")).toMatch(/\(required\) \| api, worker, cli/);
    expect(new Set(schemaVariables().map((v) => v.description)).size).toBeGreaterThan(60);
  });

  it("when .env.example is loaded as an env file, then every value it sets parses", async () => {
    const { loadApiConfig, loadWorkerConfig } = await import("./index.js");
    const env = Object.fromEntries(
      envExample()
        .split("\n")
        .filter((l) => /^[A-Z]/.test(l))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    const secrets = { SECRETS_KEY: Buffer.alloc(32, 1).toString("base64") };
    expect(() => loadApiConfig({ ...env, ...secrets })).not.toThrow();
    expect(() => loadWorkerConfig({ ...env, ...secrets })).not.toThrow();
  });
});
