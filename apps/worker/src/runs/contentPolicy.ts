import { readFileSync } from "node:fs";
import type { WorkerConfig } from "@svc/config";

/** The blocklist from CONTENT_POLICY_BLOCKLIST (comma-separated) and CONTENT_POLICY_FILE (one per line). */
export function loadBlocklist(
  config: Pick<WorkerConfig, "CONTENT_POLICY_BLOCKLIST" | "CONTENT_POLICY_FILE">,
): string[] {
  const fromEnv = config.CONTENT_POLICY_BLOCKLIST.split(",");
  const fromFile = config.CONTENT_POLICY_FILE
    ? readFileSync(config.CONTENT_POLICY_FILE, "utf8").split("\n")
    : [];
  return [...fromEnv, ...fromFile].map((t) => t.trim()).filter((t) => t && !t.startsWith("#"));
}
