#!/usr/bin/env node
import { ConfigError, loadBaseConfig } from "@svc/config";
import { parseSecretsKey } from "@svc/core";
import { dbFromConfig } from "@svc/db";
import { USAGE, UsageError, runCommand } from "./commands.js";

const argv = process.argv.slice(2);
if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(argv.length === 0 ? 2 : 0);
}

let exitCode = 0;
try {
  const config = loadBaseConfig();
  const db = dbFromConfig(config, 2);
  try {
    // SECRETS_KEY, when set, seals the API keys of imported model servers.
    const secretsKey = process.env.SECRETS_KEY ? parseSecretsKey(process.env.SECRETS_KEY) : undefined;
    await runCommand(db, argv, (line) => console.log(line), { ...config, ...(secretsKey && { secretsKey }) });
  } finally {
    await db.$disconnect();
  }
} catch (error) {
  if (error instanceof UsageError || error instanceof ConfigError) {
    console.error(`svc: ${(error as Error).message}\n\n${USAGE}`);
    exitCode = 2;
  } else {
    console.error(`svc: ${(error as Error).message}`);
    exitCode = 1;
  }
}
process.exit(exitCode);
