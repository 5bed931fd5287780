export * from "./database.js";
export * from "./redis.js";
export * from "./fixtures.js";
