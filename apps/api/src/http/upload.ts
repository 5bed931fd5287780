// Every file that comes in with a request, whatever the API style, comes through here: our
// uploads (POST /api/v1/files), Replicate's (POST /replicate/v1/files) and OpenAI's forms
// (images/edits, videos). One path, so that what a client that drops, lies about its size or
// sends a hostile form can do is decided once:
// - a body declared larger than it may be is 413 before a byte is read; a part that grows past
//   FILE_MAX_BYTES is 413 as soon as it does, with the rest of the body left unread;
// - a client that leaves mid-file fails its file at once: no descriptor, no partial file, no
//   memory is left behind, and files the form had already taken are deleted;
// - fields are storable text (no NUL, no lone surrogate), each file field is given once.
import { PassThrough, type Readable } from "node:stream";
import busboy from "busboy";
import { ApiError, BATCH_JSONL_MAX_BYTES } from "@svc/core";
import type { File } from "@svc/db";
import { FileRefused } from "@svc/storage";
import { deleteInputFile, fileRefusal, ingestBatchFile, ingestFile } from "@svc/use-cases";
import { authOf } from "../auth/authenticate.js";
import { unstorableText } from "./boundary.js";
import type { RouteContext } from "./route.js";

/** A request's fields, and the files among them, taken in (as the caller's files, by default). */
export interface Form<T = File> {
  fields: Record<string, unknown>;
  files: Record<string, T>;
}

/**
 * What a file part becomes: `take` reads it (typed, checked, stored, recorded) and `discard` undoes
 * that for a form that failed after it; `maxBytes` bounds each part. An input file by default
 * (fileIntake); weights have their own (routes/weights.ts).
 */
export interface Intake<T> {
  maxBytes: number;
  /** `filename`: the form part's own (none for a raw body). */
  take(source: Readable, filename?: string): Promise<T>;
  discard(made: T): Promise<unknown>;
}

/** Whose the files a request stores are: the caller's account and mode, and its key. */
export function uploader(ctx: RouteContext) {
  const auth = authOf(ctx.res);
  return { accountId: auth.accountId, mode: auth.mode, apiKeyId: auth.keyId };
}

/** The caller's input files: FILE_MAX_BYTES, typed by their bytes, within the account's quota. */
export function fileIntake(ctx: RouteContext): Intake<File> {
  const owner = uploader(ctx);
  const deps = ctx.deps.files;
  return {
    maxBytes: deps.files.maxBytes,
    take: (source) => ingestFile(deps, owner, source, "upload"),
    discard: (file) => deleteInputFile(deps, owner, file),
  };
}

/** The caller's batch files (JSON Lines, OpenAI's purpose "batch"): BATCH_JSONL_MAX_BYTES, within the quota. */
export function batchFileIntake(ctx: RouteContext): Intake<File> {
  const owner = uploader(ctx);
  const deps = ctx.deps.files;
  return {
    maxBytes: BATCH_JSONL_MAX_BYTES,
    take: (source) => ingestBatchFile(deps, owner, source, BATCH_JSONL_MAX_BYTES),
    discard: (file) => deleteInputFile(deps, owner, file),
  };
}

const FIELDS_MAX = 50;
const FIELD_BYTES_MAX = 64 * 1024;
/** What a form may carry beyond its files: its fields and the parts' headers. */
const FORM_OVERHEAD_BYTES = FIELDS_MAX * FIELD_BYTES_MAX;

/** The body failed as it came (cut short, a malformed form): the client's fault, a 400. */
class BodyCut extends Error {}

const invalid = (message: string, path?: string) =>
  new ApiError("VALIDATION_ERROR", message, path ? [{ path, message }] : undefined);

/**
 * The file of an upload: the whole body (any Content-Type but multipart), or a multipart form's
 * first file part, whatever its name (Replicate's clients name it `content`, and send a
 * `metadata` part after it, which is not read).
 */
export async function receiveUpload(ctx: RouteContext): Promise<File> {
  return (await receiveOne(ctx, fileIntake(ctx))).file;
}

/** An upload's one file taken in by `intake` (the body, or a form's first file part), and its form's fields. */
export async function receiveOne<T>(
  ctx: RouteContext,
  intake: Intake<T>,
): Promise<{ file: T; fields: Form<T>["fields"] }> {
  const form = await receive(ctx, "body", intake);
  const file = form.files.file;
  if (!file) throw invalid("The form holds no file.", "content");
  return { file, fields: form.fields };
}

/**
 * The body of a route declared with `form`: a JSON object as it is (parsed by the JSON
 * middleware), or a multipart form whose fields are strings and whose file parts named in
 * `files` (`image`, or `image[]` as `image`, once each) are typed, stored and recorded as the
 * caller's files (FILE_MAX_BYTES, FILE_MAX_PIXELS: what an upload gets).
 */
export async function readForm(ctx: RouteContext, files: readonly string[]): Promise<Form>;
export async function readForm<T>(
  ctx: RouteContext,
  files: readonly string[],
  intake: Intake<T>,
): Promise<Form<T>>;
export async function readForm<T>(ctx: RouteContext, files: readonly string[], intake?: Intake<T>) {
  const { req } = ctx;
  if (typeof req.is("multipart/form-data") !== "string") {
    const body: unknown = req.body ?? {};
    if (typeof body !== "object" || Array.isArray(body))
      throw invalid("The body must be a JSON object or a multipart form.");
    return { fields: body as Record<string, unknown>, files: {} };
  }
  return receive<unknown>(ctx, files, (intake ?? fileIntake(ctx)) as Intake<unknown>);
}

/**
 * What an upload's head says, refused before its body is read: a declared length past what its
 * files may weigh (413), an encoded body (415). Whether the body is a multipart form.
 */
function checkedHead(req: RouteContext["req"], files: readonly string[] | "body", maxBytes: number): boolean {
  const multipart = typeof req.is("multipart/form-data") === "string";
  const bodyMax = multipart
    ? maxBytes * (files === "body" ? 1 : files.length) + FORM_OVERHEAD_BYTES
    : maxBytes;
  if (Number(req.get("content-length") ?? 0) > bodyMax)
    throw new ApiError("PAYLOAD_TOO_LARGE", `The body is larger than ${bodyMax} bytes.`);
  const coding = (req.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (coding !== "identity")
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the file as it is, without a Content-Encoding.");
  return multipart;
}

/** A multipart form's parser, within the form's limits; 400 when the form has no boundary. */
function formParser(req: RouteContext["req"], files: readonly string[] | "body", maxBytes: number) {
  try {
    return busboy({
      headers: req.headers,
      limits: {
        // An upload's form may carry parts beside its file (Replicate's clients add a `metadata`
        // blob): a few, drained unread.
        files: files === "body" ? 4 : files.length,
        fields: FIELDS_MAX,
        fieldSize: FIELD_BYTES_MAX,
        fileSize: maxBytes,
      },
    });
  } catch {
    throw invalid("The multipart body cannot be read (its boundary is missing).");
  }
}

/** `files`: the form's file fields, or "body": the body is one file (`file`), raw or in a form. */
async function receive<T>(
  ctx: RouteContext,
  files: readonly string[] | "body",
  intake: Intake<T>,
): Promise<Form<T>> {
  const { req, res } = ctx;
  const { maxBytes } = intake;
  const multipart = checkedHead(req, files, maxBytes);
  const form: Form<T> = { fields: {}, files: {} };
  /** Files being read: each a stream of our own, so that refusing one never ends the request. */
  const open = new Set<PassThrough>();
  const taken: Promise<unknown>[] = [];
  let failure: unknown;
  let fail: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = (error) => {
      if (failure !== undefined) return;
      failure = error;
      // Every file still coming ends now, so that its reader (and its store write) ends too.
      for (const part of open) part.destroy(error instanceof BodyCut ? error : new BodyCut("refused"));
      reject(error);
    };
  });
  failed.catch(() => {});
  const take = (name: string, source: Readable, filename?: string) => {
    const part = new PassThrough().on("error", () => {});
    open.add(part);
    part.on("close", () => open.delete(part));
    source.on("error", () => part.destroy(new BodyCut("the multipart body is malformed or cut short")));
    source.pipe(part);
    const ingested = intake.take(part, filename).then((made) => {
      form.files[name] = made;
    });
    ingested.catch(fail);
    taken.push(ingested);
  };
  req.on("error", () => fail(new BodyCut("the upload's connection failed")));
  req.on("close", () => {
    if (!req.complete) fail(new BodyCut("the upload ended before its body did"));
  });

  try {
    if (!multipart) {
      take("file", req);
    } else {
      const parser = formParser(req, files, maxBytes);
      const seen = new Set<string>();
      const parsed = new Promise<void>((resolve) => {
        parser.on("field", (name, value, info) => {
          // A part whose Content-Disposition names nothing (busboy gives it no name).
          if (typeof name !== "string") return fail(invalid("A form part has no name."));
          const problem = unstorableText(name) ?? unstorableText(value);
          if (problem) return fail(invalid(`The field ${JSON.stringify(name)} ${problem}.`, name));
          if (info.valueTruncated)
            return fail(invalid(`The field ${name} is longer than ${FIELD_BYTES_MAX} bytes.`, name));
          form.fields[name] = value;
        });
        parser.on("file", (part, stream, info) => {
          // A form that ends early fails the part being read (busboy destroys it with an error),
          // whether it is taken or drained: every part's failure is heard.
          stream.on("error", () => {});
          if (failure !== undefined || (files === "body" && seen.size)) return void stream.resume();
          if (typeof part !== "string" && files !== "body") {
            stream.resume();
            return fail(invalid("A form part has no name."));
          }
          const name = files === "body" ? "file" : part.replace(/\[\]$/, "");
          if (files !== "body" && (!files.includes(name) || seen.has(name))) {
            stream.resume();
            return fail(
              invalid(
                `The form's file ${JSON.stringify(part)} is not taken here (expected ${files.join(", ")}, one each).`,
                part,
              ),
            );
          }
          seen.add(name);
          stream.on("limit", () =>
            fail(new FileRefused("too_large", `The file is larger than ${maxBytes} bytes.`)),
          );
          take(name, stream, info.filename);
        });
        parser.on("filesLimit", () => fail(invalid("The form holds too many files.")));
        parser.on("fieldsLimit", () => fail(invalid("The form holds too many fields.")));
        parser.on("error", () => fail(new BodyCut("the multipart body is malformed or cut short")));
        parser.on("close", resolve);
      });
      req.pipe(parser);
      await Promise.race([parsed, failed]);
    }
    await Promise.race([Promise.all(taken), failed]);
    return form;
  } catch (error) {
    fail(error);
    // What the form had taken goes with it (never shown, never a run's); the rest is failing now.
    await Promise.allSettled(taken);
    const made = Object.values(form.files);
    await Promise.allSettled(made.map((file) => intake.discard(file)));
    if (error instanceof FileRefused) throw fileRefusal(error);
    if (error instanceof BodyCut) throw invalid(`The upload was not received whole: ${error.message}.`);
    throw error;
  } finally {
    // A body not read to its end (refused on its type or a part): a small rest is read and dropped,
    // so that a client still sending reads the answer rather than a broken pipe; past that the
    // answer closes the connection, and what the client still sends is dropped, never stored.
    if (!req.complete && !(await dropRest(req))) {
      res.set("Connection", "close");
      req.unpipe();
      req.resume();
    }
  }
}

/** How much of a refused body is read to its end before the answer (else the connection closes). */
const DROP_MAX_BYTES = 1024 * 1024;
const DROP_MAX_MS = 2_000;

/** Reads a refused body's rest and drops it; true when it ended within DROP_MAX_BYTES and DROP_MAX_MS. */
function dropRest(req: RouteContext["req"]): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = 0;
    const done = (ended: boolean) => {
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("close", onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DROP_MAX_BYTES) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(req.complete);
    const timer = setTimeout(() => done(false), DROP_MAX_MS);
    req.on("data", onData).once("end", onEnd).once("close", onClose);
    req.resume();
  });
}
