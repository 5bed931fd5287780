export * from "./database.js";
export * from "./redis.js";
export * from "./fixtures.js";
export * from "./models.js";
export * from "./process.js";
export * from "./wait.js";
export * from "./httpsReceiver.js";
export * from "./fakeCogServer.js";
