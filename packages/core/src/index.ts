export * from "./errors.js";
export * from "./ids.js";
export * from "./apiKeys.js";
export * from "./pricing.js";
export * from "./catalogue.js";
export * from "./models.js";
export * from "./ledger.js";
