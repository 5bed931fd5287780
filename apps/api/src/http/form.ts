import busboy from "busboy";
import { ApiError } from "@svc/core";
import type { File } from "@svc/db";
import { FileRefused } from "@svc/storage";
import { fileRefusal, ingestFile } from "@svc/use-cases";
import { authOf } from "../auth/authenticate.js";
import type { RouteContext } from "./route.js";

/** A request's fields, and the files among them, taken in as the caller's files. */
export interface Form {
  fields: Record<string, unknown>;
  files: Record<string, File>;
}

const FIELDS_MAX = 50;
const FIELD_BYTES_MAX = 64 * 1024;

/**
 * The body of a route declared with `form`: a JSON object as it is (parsed by the JSON middleware),
 * or a multipart form whose fields are strings and whose file parts named in `files` (`image`,
 * `image[]` as `image`) are typed, stored and recorded as the caller's files (FILE_MAX_BYTES,
 * FILE_MAX_PIXELS: what an upload gets); other file parts are refused. A form that fails as it
 * comes (cut short, malformed) is a 400, and its files already taken are kept only as long as
 * any upload (they expire).
 */
export async function readForm(ctx: RouteContext, files: readonly string[]): Promise<Form> {
  const { req, res, deps } = ctx;
  if (typeof req.is("multipart/form-data") !== "string") {
    const body: unknown = req.body ?? {};
    if (typeof body !== "object" || Array.isArray(body))
      throw new ApiError("VALIDATION_ERROR", "The body must be a JSON object or a multipart form.");
    return { fields: body as Record<string, unknown>, files: {} };
  }
  const auth = authOf(res);
  const owner = { accountId: auth.accountId, mode: auth.mode, apiKeyId: auth.keyId };
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: files.length, fields: FIELDS_MAX, fieldSize: FIELD_BYTES_MAX },
    });
  } catch {
    throw new ApiError("VALIDATION_ERROR", "The multipart body cannot be read (its boundary is missing).");
  }
  const form: Form = { fields: {}, files: {} };
  const taken: Promise<void>[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      req.unpipe(parser);
      req.resume();
      reject(error);
    };
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated)
        return fail(
          new ApiError("VALIDATION_ERROR", `The field ${name} is longer than ${FIELD_BYTES_MAX} bytes.`),
        );
      form.fields[name] = value;
    });
    parser.on("file", (part, stream) => {
      const name = part.replace(/\[\]$/, "");
      if (!files.includes(name) || form.files[name]) {
        stream.resume();
        return fail(
          new ApiError("VALIDATION_ERROR", `The form's file ${JSON.stringify(part)} is not taken here.`, [
            { path: part, message: `expected files ${files.join(", ")}, one each` },
          ]),
        );
      }
      stream.on("error", () => {});
      const ingested = ingestFile(deps.files, owner, stream, "upload").then((file) => {
        form.files[name] = file;
      });
      // Awaited once the form has been read; a failure before then must not go unheard.
      ingested.catch(() => {});
      taken.push(ingested);
    });
    parser.on("filesLimit", () => fail(new ApiError("VALIDATION_ERROR", "The form holds too many files.")));
    parser.on("fieldsLimit", () => fail(new ApiError("VALIDATION_ERROR", "The form holds too many fields.")));
    parser.on("error", () =>
      fail(new ApiError("VALIDATION_ERROR", "The multipart body is malformed or cut short.")),
    );
    parser.on("close", resolve);
    req.on("close", () => {
      if (!req.complete) fail(new ApiError("VALIDATION_ERROR", "The form ended before its body did."));
    });
  });
  req.pipe(parser);
  try {
    await done;
    await Promise.all(taken);
  } catch (error) {
    await Promise.allSettled(taken);
    if (error instanceof FileRefused) throw fileRefusal(error);
    throw error;
  }
  return form;
}
