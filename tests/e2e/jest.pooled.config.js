import preset from "../../jest.preset.js";

// The run, cancel, webhook and real-time tests once more, with the API and worker processes behind
// a PgBouncer of their own in transaction pooling mode (DATABASE_POOLING=transaction).
export default {
  ...preset,
  displayName: "tests/e2e behind pgbouncer",
  rootDir: import.meta.dirname,
  testMatch: ["<rootDir>/src/{runs,webhooks,realtime}.test.ts"],
  setupFiles: ["<rootDir>/src/pooled.setup.ts"],
};
