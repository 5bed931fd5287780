import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { ApiError, fileFieldsOf, type ErrorDetail, type FileField } from "@svc/core";

// One compiled validator per model version. Defaults are applied, unknown fields are refused by
// the schemas' additionalProperties: false, and every failing field is reported.
const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false });
// `format: "uri"` marks a file input (Cog's convention), whose value is a file id, a URL or a data
// URL: resolveFileInputs checks it, so ajv takes any string (and says nothing of an unknown format).
ajv.addFormat("uri", true);
const compiled = new Map<string, ValidateFunction>();

function validatorFor(modelId: string, version: Date, schema: object): ValidateFunction {
  const key = `${modelId}@${version.getTime()}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

function detail(error: ErrorObject): ErrorDetail {
  const path = ["input", ...error.instancePath.split("/").filter(Boolean)];
  if (error.keyword === "required") path.push(String(error.params.missingProperty));
  if (error.keyword === "additionalProperties") {
    path.push(String(error.params.additionalProperty));
    return { path: path.join("."), message: "unknown field" };
  }
  const allowed = error.keyword === "enum" ? `: ${(error.params.allowedValues as unknown[]).join(", ")}` : "";
  return { path: path.join("."), message: `${error.message ?? "is invalid"}${allowed}` };
}

/**
 * Compiles the validators of these models now rather than at their first run (the first
 * compilation also compiles JSON Schema's meta-schema: milliseconds of CPU on the request path of
 * a new process). A schema that does not compile is left for its requests to report.
 */
export function compileInputValidators(
  models: readonly { id: string; updatedAt: Date; inputSchema: unknown }[],
): number {
  let compiledNow = 0;
  for (const m of models) {
    try {
      validatorFor(m.id, m.updatedAt, m.inputSchema as object);
      compiledNow++;
    } catch {
      // reported to the model's callers, as before
    }
  }
  return compiledNow;
}

/** The input with the schema's defaults filled in, or a 400 listing every failing field. */
export function validateRunInput(
  model: { id: string; updatedAt: Date; inputSchema: unknown },
  input: Record<string, unknown>,
): Record<string, unknown> {
  const copy = structuredClone(input);
  const validate = validatorFor(model.id, model.updatedAt, model.inputSchema as object);
  if (validate(copy)) return copy;
  throw new ApiError(
    "VALIDATION_ERROR",
    "The input does not match the model's input schema.",
    (validate.errors ?? []).map(detail),
  );
}

const fileFields = new Map<string, readonly FileField[]>();

/** The model's file input fields (core's fileFieldsOf), read once per model version. */
export function fileFieldsFor(model: {
  id: string;
  updatedAt: Date;
  inputSchema: unknown;
}): readonly FileField[] {
  const key = `${model.id}@${model.updatedAt.getTime()}`;
  let fields = fileFields.get(key);
  if (!fields) {
    fields = fileFieldsOf(model.inputSchema);
    fileFields.set(key, fields);
  }
  return fields;
}
