// Every kind's import, in the order the CLI's help and the console show them. A new kind of model
// server adds its importer here.
import { cogImporter } from "./importCogModel.js";
import { comfyImporter } from "./importComfyModel.js";
import type { Importer } from "./importer.js";
import { openAIImporter } from "./importOpenAIModel.js";

export const IMPORTERS: readonly Importer[] = [cogImporter, openAIImporter, comfyImporter] as never;
