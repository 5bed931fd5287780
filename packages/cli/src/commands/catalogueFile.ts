import { readFile, writeFile } from "node:fs/promises";
import { catalogueSchema, type CatalogueEntry } from "@svc/core";

/** Replaces the entry with the same id, or appends it, keeping the file's order and format. */
export async function saveToCatalogueFile(entry: CatalogueEntry, path: string) {
  const catalogue = catalogueSchema.parse(JSON.parse(await readFile(path, "utf8")));
  const at = catalogue.models.findIndex((m) => m.id === entry.id);
  if (at >= 0) catalogue.models[at] = entry;
  else catalogue.models.push(entry);
  await writeFile(path, `${JSON.stringify(catalogue, null, 2)}\n`);
}
