import openapiTS, { astToString } from "openapi-typescript";
import { buildOpenApiDocument, type OpenApiDocument } from "./document.js";

const HEADER = [
  "// Generated from the API's OpenAPI document by `pnpm sdk:types`: do not edit.",
  "// apps/api/src/openapi/sdkTypes.test.ts fails when it differs from what the routes generate.",
  "/* eslint-disable */",
];

/**
 * The SDK's generated files (committed, checked by a test), from the document this API serves: the
 * one description of the HTTP contract, so that neither the SDK nor the console can drift from
 * the routes. openapi.ts: the types (openapi-typescript). importForms.ts: the operator's import
 * routes with their bodies' schemas, from which the console draws its import forms.
 */
export async function sdkFiles(): Promise<Record<string, string>> {
  const document = buildOpenApiDocument("http://localhost:3000", { adapters: false });
  const ast = await openapiTS(document as never, { exportType: true, alphabetize: false });
  return {
    "packages/sdk/src/generated/openapi.ts": [...HEADER, astToString(ast)].join("\n"),
    "packages/sdk/src/generated/importForms.ts": [...HEADER, importForms(document)].join("\n"),
  };
}

const CONSOLE_API = "/console/api";
const IMPORT_PATH = /^\/operator\/models\/import(-[a-z]+)?$/;

function importForms(document: OpenApiDocument): string {
  const forms = Object.entries(document.paths ?? {}).flatMap(([path, item]) => {
    const local = path.slice(CONSOLE_API.length);
    const post = item?.post;
    if (!path.startsWith(CONSOLE_API) || !IMPORT_PATH.test(local) || !post) return [];
    const body = (post.requestBody as { content: Record<string, { schema: unknown; example?: unknown }> })
      .content["application/json"]!;
    return [{ path: local, summary: post.summary, schema: body.schema, example: body.example }];
  });
  return `
/** A model server kind's import, as the API declares it: where it posts, and its body's schema. */
export interface ImportForm {
  path: string;
  summary: string;
  schema: {
    type: "object";
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
    additionalProperties?: boolean;
  };
  example: Record<string, unknown>;
}

export const IMPORT_FORMS: ImportForm[] = ${JSON.stringify(forms, null, 2)};
`;
}
