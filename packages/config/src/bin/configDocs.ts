import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configurationMarkdown, envExample } from "../configTable.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
writeFileSync(`${root}docs/configuration.md`, configurationMarkdown());
writeFileSync(`${root}.env.example`, envExample());
console.log("wrote docs/configuration.md and .env.example");
