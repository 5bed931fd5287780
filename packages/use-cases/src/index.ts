export * from "./runs/lifecycle.js";
