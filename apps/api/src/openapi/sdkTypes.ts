import openapiTS, { astToString } from "openapi-typescript";
import { buildOpenApiDocument } from "./document.js";

/** Where the SDK keeps the types generated from this document (committed, checked by a test). */
export const SDK_TYPES_FILE = "packages/sdk/src/generated/openapi.ts";

/**
 * The SDK's types, generated from the document this API serves (openapi-typescript): the one
 * description of the HTTP contract, so that the SDK cannot drift from the routes.
 */
export async function sdkTypes(): Promise<string> {
  const document = buildOpenApiDocument("http://localhost:3000", { adapters: false });
  const ast = await openapiTS(document as never, { exportType: true, alphabetize: false });
  return [
    "// Generated from the API's OpenAPI document by `pnpm sdk:types`: do not edit.",
    "// apps/api/src/openapi/sdkTypes.test.ts fails when it differs from what the routes generate.",
    "/* eslint-disable */",
    astToString(ast),
  ].join("\n");
}
