import { loadBaseConfig } from "@svc/config";
import { loadCatalogue, seedCatalogue } from "../catalogue.js";
import { dbFromConfig } from "../client.js";

const db = dbFromConfig(loadBaseConfig(), 2);
try {
  const count = await seedCatalogue(db, await loadCatalogue(process.argv[2]));
  console.log(`catalogue seeded: ${count} models`);
} finally {
  await db.$disconnect();
}
