export * from "./guardedGet.js";
export * from "./lookups.js";
export * from "./servers.js";
export * from "./serverWork.js";
