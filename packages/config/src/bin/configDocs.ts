import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configurationMarkdown } from "../configTable.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
writeFileSync(
  `${root}docs/configuration.md`,
  configurationMarkdown(readFileSync(`${root}.env.example`, "utf8")),
);
console.log("wrote docs/configuration.md");
