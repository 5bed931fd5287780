// Writes the OpenAPI document to a file (default: stdout), for linters, SDK generators and docs.
import { writeFileSync } from "node:fs";
import { buildOpenApiDocument } from "../openapi/document.js";

const text = `${JSON.stringify(buildOpenApiDocument(process.env.PUBLIC_BASE_URL ?? "http://localhost:3000"), null, 2)}\n`;
if (process.argv[2]) writeFileSync(process.argv[2], text);
else process.stdout.write(text);
