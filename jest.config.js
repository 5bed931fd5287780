// `pnpm test`: every package's tests in one run, one summary.
export default {
  projects: [
    "<rootDir>/packages/*",
    "<rootDir>/apps/*",
    "<rootDir>/tests/*",
    "<rootDir>/tests/e2e/jest.pooled.config.js",
  ],
  maxWorkers: 2,
  // Hooks build databases and start processes; individual waits have their own deadlines.
  testTimeout: 60_000,
};
