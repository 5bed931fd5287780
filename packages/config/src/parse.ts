import { isIP } from "node:net";
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

/** "host:port,host:port" (IPv6 in brackets) as a list of addresses, for Redis Sentinel and Cluster. */
export const hostPorts = z.string().transform((value, ctx): { host: string; port: number }[] => {
  const out: { host: string; port: number }[] = [];
  for (const item of value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(item);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) {
      ctx.addIssue({
        code: "custom",
        message: `expected host:port entries, comma-separated (got "${item}")`,
      });
      return z.NEVER;
    }
    out.push({ host: match[1]!.replace(/^\[|\]$/g, ""), port });
  }
  if (!out.length) {
    ctx.addIssue({ code: "custom", message: "expected at least one host:port" });
    return z.NEVER;
  }
  return out;
});

const PROXY_PRESETS = new Set(["loopback", "linklocal", "uniquelocal"]);
const TRUST_PROXY_HELP =
  "expected false, the number of proxies in front (1 for one load balancer), or their addresses: IPs, CIDRs, loopback, linklocal, uniquelocal, comma-separated";

/**
 * Which X-Forwarded-For hops to believe, as Express's "trust proxy" takes them: none (false), the
 * last N hops (a number), or hops from these addresses. Never "true": trusting every hop lets any
 * client pick its own address with the header and pass every per-address limit.
 */
export const trustProxy = z.string().transform((value, ctx): false | number | string[] => {
  const text = value.trim().toLowerCase();
  if (text === "false" || text === "0") return false;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  if (text === "true") {
    ctx.addIssue({
      code: "custom",
      message: `true would believe any client's X-Forwarded-For; ${TRUST_PROXY_HELP}`,
    });
    return z.NEVER;
  }
  const entries = text.split(",").map((e) => e.trim());
  const valid = (e: string) => {
    if (PROXY_PRESETS.has(e)) return true;
    const [address, bits, ...rest] = e.split("/");
    const family = isIP(address ?? "");
    if (!family || rest.length) return false;
    if (bits === undefined) return true;
    const n = Number(bits);
    return /^\d{1,3}$/.test(bits) && n <= (family === 4 ? 32 : 128);
  };
  if (entries.every(valid)) return entries;
  ctx.addIssue({ code: "custom", message: TRUST_PROXY_HELP });
  return z.NEVER;
});
