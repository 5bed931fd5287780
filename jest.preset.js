// Shared by every package's jest.config.js. Tests run on the TypeScript sources through SWC,
// and workspace packages resolve to their sources too, so no build is needed before a test.
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      { jsc: { target: "es2022", parser: { syntax: "typescript" } }, module: { type: "es6" } },
    ],
  },
  moduleNameMapper: {
    "^@svc/(core|config|logger|db|net|queue|runners|testkit|sdk|use-cases|telemetry)$": `${root}packages/$1/src/index.ts`,
    "^@svc/cli$": `${root}packages/cli/src/commands.ts`,
    "^@svc/db/testing$": `${root}packages/db/src/testing/database.ts`,
    "^(\\.{1,2}/.*)\\.js$": "$1",
  },
  testMatch: ["<rootDir>/src/**/*.test.ts"],
};
