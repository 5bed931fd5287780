import { fileURLToPath } from "node:url";

// packages/db/{src,dist}/paths.* -> repository root
const root = fileURLToPath(new URL("../../../", import.meta.url));

export const repoPaths = {
  root,
  schema: `${root}prisma/schema.prisma`,
  migrations: `${root}prisma/migrations`,
  catalogue: `${root}catalogue/models.json`,
};
