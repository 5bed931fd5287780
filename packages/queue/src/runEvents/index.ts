export * from "./recorder.js";
export * from "./streamIds.js";
export * from "./hub.js";
