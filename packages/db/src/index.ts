export { createDb, type Db, type DbOptions } from "./client.js";
export { repoPaths } from "./paths.js";
export { loadCatalogue, seedCatalogue } from "./catalogue.js";
export * from "./repositories/accounts.js";
export * from "./repositories/apiKeys.js";
export * from "./repositories/models.js";
export { Prisma } from "./generated/prisma/client.js";
export type * from "./generated/prisma/client.js";
export * from "./repositories/runs.js";
