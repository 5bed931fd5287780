import { z } from "zod";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * Parses an environment against a schema once, at start-up. Empty variables count as unset, so
 * that `FOO=` in a .env file falls back to the default. Every bad or missing variable is named.
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): z.infer<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join(".");
      const given = present[name];
      const shown = given === undefined ? "missing" : `got ${JSON.stringify(redact(name, given))}`;
      return `${name}: ${issue.message} (${shown})`;
    }),
  );
}

function redact(name: string, value: string): string {
  return /SECRET|PASSWORD|KEY|TOKEN/.test(name)
    ? "<redacted>"
    : value.replace(/\/\/[^@/]*@/, "//<credentials>@");
}

export const int = (min: number, max: number) =>
  z.coerce
    .number({ error: `expected an integer from ${min} to ${max}` })
    .int({ error: `expected an integer from ${min} to ${max}` })
    .min(min, { error: `expected an integer from ${min} to ${max}` })
    .max(max, { error: `expected an integer from ${min} to ${max}` });

export const bool = z
  .enum(["true", "false", "1", "0"], { error: "expected true or false" })
  .transform((v) => v === "true" || v === "1");

export const url = (protocols: string[]) =>
  z.url({
    protocol: new RegExp(`^(${protocols.join("|")})$`),
    error: `expected a ${protocols.join(" or ")} URL`,
  });
