import { loadBaseConfig } from "@svc/config";
import { loadCatalogue, seedCatalogue } from "../catalogue.js";
import { createDb } from "../client.js";

const db = createDb({ url: loadBaseConfig().DATABASE_URL, poolSize: 2 });
try {
  const count = await seedCatalogue(db, await loadCatalogue(process.argv[2]));
  console.log(`catalogue seeded: ${count} models`);
} finally {
  await db.$disconnect();
}
