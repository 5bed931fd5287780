export * from "./runs/lifecycle.js";
export * from "./runs/progress.js";
export * from "./console/people.js";
export { hashPassword } from "./console/passwords.js";
export * from "./runs/wiring.js";
export * from "./catalogue/importCogModel.js";
export * from "./operator/operator.js";
