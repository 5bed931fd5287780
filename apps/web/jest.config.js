import preset from "../../jest.preset.js";

// The console's browser tests: the built API and worker as processes, driven by real Chromium.
export default {
  ...preset,
  displayName: import.meta.dirname.split("/").slice(-2).join("/"),
  testMatch: ["<rootDir>/e2e/**/*.test.ts"],
};
