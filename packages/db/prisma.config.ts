// Used by the Prisma CLI only (generate). The application connects through @prisma/adapter-pg
// with DATABASE_URL from its own validated configuration, and migrations are applied by
// packages/db's migration runner (see docs/data-model.md).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "../../prisma/schema.prisma",
  migrations: { path: "../../prisma/migrations" },
});
