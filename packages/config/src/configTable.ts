import { apiEnvSchema, baseEnvSchema, workerEnvSchema } from "./schemas.js";

const REQUIRED_SAMPLE = {
  DATABASE_URL: "postgresql://x@localhost/x",
  SECRETS_KEY: Buffer.alloc(32).toString("base64"),
};

export interface EnvVariable {
  name: string;
  description: string;
  default: string;
  usedBy: string[];
}

/** Every variable of .env.example (commented-out ones too) with the comment above its group. */
export function parseEnvExample(text: string): { name: string; description: string }[] {
  const out: { name: string; description: string }[] = [];
  // A comment describes every variable of the group right below it.
  let comment: string[] = [];
  let afterVariable = false;
  for (const line of text.split("\n")) {
    const variable = /^#?\s?([A-Z][A-Z0-9_]+)=/.exec(line);
    if (variable) {
      out.push({ name: variable[1]!, description: comment.join(" ") });
      afterVariable = true;
    } else if (line.startsWith("#") && !line.startsWith("# ---")) {
      if (afterVariable) comment = [];
      comment.push(line.replace(/^#\s?/, ""));
      afterVariable = false;
    } else if (!line.trim()) {
      comment = [];
      afterVariable = false;
    }
  }
  return out;
}

/** The schemas' variables, with defaults and the processes that read them. */
export function schemaVariables(): Map<string, { default: string; usedBy: string[] }> {
  const schemas = { api: apiEnvSchema, worker: workerEnvSchema, cli: baseEnvSchema } as const;
  const vars = new Map<string, { default: string; usedBy: string[] }>();
  for (const [app, schema] of Object.entries(schemas)) {
    const parsed = schema.parse(REQUIRED_SAMPLE) as Record<string, unknown>;
    for (const name of Object.keys(schema.shape)) {
      const entry = vars.get(name) ?? { default: "", usedBy: [] };
      entry.usedBy.push(app);
      const value =
        name in REQUIRED_SAMPLE
          ? "(required)"
          : parsed[name] === undefined
            ? "(unset)"
            : String(parsed[name]);
      // The same variable may default differently per process (SHUTDOWN_GRACE_MS).
      if (!entry.default.split(" / ").includes(value))
        entry.default = entry.default ? `${entry.default} / ${value} (${app})` : value;
      vars.set(name, entry);
    }
  }
  return vars;
}

/** docs/configuration.md, generated: `pnpm docs:config` writes it, a test keeps it current. */
export function configurationMarkdown(envExample: string): string {
  const described = new Map(parseEnvExample(envExample).map((v) => [v.name, v.description]));
  const rows = [...schemaVariables()].map(
    ([name, v]) =>
      `| \`${name}\` | ${v.default.replaceAll("|", "\\|")} | ${v.usedBy.join(", ")} | ${(described.get(name) ?? "").replaceAll("|", "\\|")} |`,
  );
  return [
    "# Configuration",
    "",
    "Generated from the environment schemas (packages/config) and the comments of `.env.example` by",
    "`pnpm docs:config`; a test fails when this file, `.env.example` or the schemas disagree.",
    "Every process validates its variables once at start-up and exits with code 78 naming each bad",
    "or missing one. Empty values count as unset.",
    "",
    "| variable | default | read by | meaning |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
