import {
  ApiError,
  parseFileRef,
  REPLICATE_PREFIX,
  signedInputFileUrl,
  type ErrorDetail,
  inputFileKey,
  type FileField,
  type Mode,
} from "@svc/core";
import { Readable } from "node:stream";
import {
  createFileWithinQuota,
  deleteFile,
  filesBytesHeld,
  findFile,
  findFilesById,
  newFileId,
  type Db,
  type File,
} from "@svc/db";
import { guardedGet, RefusedUrl, type GuardedAgents } from "@svc/net";
import { FileRefused, readStoredBytes, storeInputFile, type OutputStore } from "@svc/storage";

export interface FileSettings {
  maxBytes: number;
  maxPixels: number;
  /** The bytes of input files an account may hold at once, per mode (FILE_QUOTA_BYTES, _TEST). */
  quotaBytes: Record<Mode, number>;
  dataUrlMaxBytes: number;
  retentionHours: number;
  fetchTimeoutMs: number;
  /** Loopback and private addresses allowed for file URLs (WEBHOOK_ALLOW_PRIVATE_URLS). */
  allowPrivate: boolean;
  /** PUBLIC_BASE_URL: where the API serves files (ids in URLs of ours are taken as ids). */
  publicBaseUrl: string;
}

export interface FileDeps {
  db: Db;
  store: OutputStore;
  agents: GuardedAgents;
  files: FileSettings;
}

/** Whose a file is: the account, the key's mode (a test key's files are test files), the key. */
export interface FileOwner {
  accountId: string;
  mode: Mode;
  apiKeyId: string | null;
}

/** Where the API answers for files: `<it>/<id>` (metadata) and `<it>/<id>/content` (bytes), with a key. */
export const filesUrl = (publicBaseUrl: string) => `${publicBaseUrl.replace(/\/$/, "")}/api/v1/files`;
/** Every URL of a file of ours an input may give: ours, and the Replicate adapter's (urls.get). */
const ownFileUrls = (publicBaseUrl: string) => [
  filesUrl(publicBaseUrl),
  `${publicBaseUrl.replace(/\/$/, "")}${REPLICATE_PREFIX}/files`,
];

/** How a file is shown: the upload's answer, GET /files/{id} and the list. */
export function presentFile(file: File, publicBaseUrl: string) {
  return {
    id: file.id,
    url: `${filesUrl(publicBaseUrl)}/${file.id}/content`,
    content_type: file.contentType,
    size: file.size,
    sha256: file.sha256,
    width: file.width,
    height: file.height,
    created_at: file.createdAt.toISOString(),
    expires_at: file.expiresAt.toISOString(),
  };
}

/**
 * Deletes an input file of the owner's: its row marked, then its bytes removed. false when it was
 * not there (another account's, deleted, or never made). Runs made with it and not yet started
 * fail with INPUT_FILE_UNAVAILABLE, charged nothing.
 */
export async function deleteInputFile(
  deps: Pick<FileDeps, "db" | "store">,
  owner: { accountId: string; mode: Mode },
  file: Pick<File, "id" | "contentType">,
): Promise<boolean> {
  if (!(await deleteFile(deps.db, owner, file.id))) return false;
  await deps.store.remove([inputFileKey(file.id, file.contentType)]);
  return true;
}

/** The answer to a refused upload (a refused file input is a 400 naming its field instead). */
export function fileRefusal(error: FileRefused): ApiError {
  if (error.reason === "too_large") return new ApiError("PAYLOAD_TOO_LARGE", error.message);
  if (error.reason === "quota") return new ApiError("FILE_QUOTA_EXCEEDED", error.message);
  if (error.reason === "unsupported") return new ApiError("UNSUPPORTED_MEDIA_TYPE", error.message);
  return new ApiError("VALIDATION_ERROR", error.message, [{ path: "file", message: error.message }]);
}

/**
 * Takes in one file (an upload, a fetched URL, a data URL): typed by its bytes, stored, recorded.
 * Throws FileRefused (nothing stored, nothing recorded) for a file the service does not take.
 */
export async function ingestFile(
  deps: FileDeps,
  owner: FileOwner,
  source: Readable | Uint8Array,
  origin: "upload" | "url" | "data_url",
  signal?: AbortSignal,
): Promise<File> {
  const id = newFileId();
  const { maxBytes, maxPixels, retentionHours } = deps.files;
  const quota = deps.files.quotaBytes[owner.mode];
  const account = { accountId: owner.accountId, mode: owner.mode };
  // A full account is refused before a byte is stored; the exact check is the row's, below.
  if ((await filesBytesHeld(deps.db, account, new Date())) >= quota) {
    if (source instanceof Readable) source.on("error", () => {}).destroy();
    throw overQuota(owner.mode, quota);
  }
  const stored = await storeInputFile(deps.store, id, source, { maxBytes, maxPixels }, signal);
  // Created and expiring by one clock (the database's default would be another).
  const createdAt = new Date();
  try {
    const created = await createFileWithinQuota(deps.db, account, id, quota, {
      apiKeyId: owner.apiKeyId,
      contentType: stored.contentType,
      size: stored.size,
      sha256: stored.sha256,
      width: stored.width,
      height: stored.height,
      origin,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + retentionHours * 3_600_000),
    });
    if (!created) throw overQuota(owner.mode, quota);
    return created;
  } catch (error) {
    // No row, no file: its bytes go (nothing could name them).
    await deps.store.remove([stored.key]).catch(() => {});
    throw error;
  }
}

const overQuota = (mode: Mode, quota: number) =>
  new FileRefused(
    "quota",
    `The account's ${mode} input files would hold more than ${quota} bytes (${mode === "live" ? "FILE_QUOTA_BYTES" : "FILE_QUOTA_BYTES_TEST"}); delete files or let them expire to make room.`,
  );

const UNREACHABLE =
  "the URL could not be reached at a public address (its host must resolve to public addresses only: not loopback, private, link-local or internal)";

/** Why a URL given as a file (an input, weights) could not be had. */
export class Unavailable extends Error {}

/**
 * Fetches a URL someone gave (guardedGet's address rules, https only, FILE_FETCH_TIMEOUT_MS for all
 * of it, `maxBytes` by its declared length) and hands its body to `take`: a file input, weights.
 */
export async function fetchUrlInto<T>(
  deps: FileDeps,
  url: string,
  maxBytes: number,
  take: (body: Readable, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const signal = AbortSignal.timeout(deps.files.fetchTimeoutMs);
  let response;
  try {
    response = await guardedGet(url, {
      allowPrivate: deps.files.allowPrivate,
      httpsOnly: true,
      timeoutMs: deps.files.fetchTimeoutMs,
      signal,
      agents: deps.agents,
    });
  } catch (error) {
    // An internal host and one that cannot be reached get one answer, as webhook URLs do: telling
    // them apart would let anyone map the internal names the service can see.
    if (error instanceof RefusedUrl && error.why !== "an internal address")
      throw new Unavailable(`the URL was refused: ${error.why}`);
    throw new Unavailable(
      signal.aborted && !(error instanceof RefusedUrl) ? "the URL did not answer in time" : UNREACHABLE,
    );
  }
  const { statusCode, headers, body } = response;
  if (statusCode < 200 || statusCode > 299) {
    await body.dump().catch(() => {});
    throw new Unavailable(`the URL answered HTTP ${statusCode}`);
  }
  if (Number(headers["content-length"]) > maxBytes) {
    body.on("error", () => {}).destroy();
    throw new FileRefused("too_large", `The file is larger than ${maxBytes} bytes.`);
  }
  // The body's own failure (a server that closes halfway) is the URL's, not ours: a 400.
  let broken = false;
  body.on("error", () => (broken = true));
  try {
    return await take(body, signal);
  } catch (error) {
    if (error instanceof FileRefused) throw error;
    if (signal.aborted) throw new Unavailable("the URL did not send its file in time");
    if (broken) throw new Unavailable("the URL's answer ended before its file did");
    throw error;
  }
}

/** A file input's URL taken in as a file of the owner's. */
const fetchFile = (deps: FileDeps, owner: FileOwner, url: string): Promise<File> =>
  fetchUrlInto(deps, url, deps.files.maxBytes, (body, signal) =>
    ingestFile(deps, owner, body, "url", signal),
  );

/**
 * A run's file inputs, each made a file id of the owner's before the run is created: an id is
 * checked (the owner's, there, of a kind the field takes, within its pixel limit), a data URL or an
 * https URL is taken in as a new file. Every field's problem is reported at once (400).
 */
export async function resolveFileInputs(
  deps: FileDeps,
  owner: FileOwner,
  fields: readonly FileField[],
  input: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const present = fields.filter((f) => input[f.name] !== undefined && input[f.name] !== null);
  if (!present.length) return input;
  const problems: ErrorDetail[] = [];
  const resolved = { ...input };
  const base = ownFileUrls(deps.files.publicBaseUrl);
  await Promise.all(
    present.map(async (field) => {
      const path = `input.${field.name}`;
      const ref = parseFileRef(input[field.name], base, deps.files.dataUrlMaxBytes);
      try {
        let file: File | null;
        if (ref.kind === "invalid") return void problems.push({ path, message: ref.message });
        if (ref.kind === "id") {
          file = await findFile(deps.db, { accountId: owner.accountId, mode: owner.mode }, ref.id);
          if (!file)
            return void problems.push({
              path,
              message: `no file ${ref.id} of this account and mode (deleted, expired, or never uploaded with a ${owner.mode} key)`,
            });
        } else if (ref.kind === "data") file = await ingestFile(deps, owner, ref.bytes, "data_url");
        else file = await fetchFile(deps, owner, ref.url);
        const kind = file.contentType.split("/")[0] as "image" | "video" | "audio";
        if (!field.kinds.includes(kind))
          return void problems.push({
            path,
            message: `expected ${field.kinds.join(" or ")}, got ${file.contentType}`,
          });
        if (field.types && !field.types.includes(file.contentType))
          return void problems.push({
            path,
            message: `expected ${field.types.join(" or ")}, got ${file.contentType}`,
          });
        if (field.maxBytes && file.size > field.maxBytes)
          return void problems.push({
            path,
            message: `the file is ${file.size} bytes; this model takes at most ${field.maxBytes} here`,
          });
        if (field.maxPixels && file.width && file.height && file.width * file.height > field.maxPixels)
          return void problems.push({
            path,
            message: `the image is ${file.width}x${file.height}; this model takes at most ${field.maxPixels} pixels`,
          });
        resolved[field.name] = file.id;
      } catch (error) {
        if (error instanceof FileRefused || error instanceof Unavailable)
          return void problems.push({ path, message: error.message });
        throw error;
      }
    }),
  );
  if (problems.length) throw new ApiError("VALIDATION_ERROR", "An input file was refused.", problems);
  return resolved;
}

/**
 * A run's file inputs as its runner gets them (its kind's `files` trait): for a model server, each
 * file id replaced by a short-lived signed URL of our store (the bucket's own when it is S3, else
 * the API's); for a runner on the worker's threads, the ids as they are (it reads the files with
 * readInputFile). undefined when a file is gone (deleted or expired since the run was made): the
 * run then fails, charged nothing.
 */
export async function runFileInputs(
  deps: { db: Db; store: OutputStore; secretsKey: Buffer; publicBaseUrl: string; ttlSeconds: number },
  fields: readonly FileField[],
  input: Record<string, unknown>,
  as: "urls" | "ids",
  now = new Date(),
): Promise<Record<string, unknown> | undefined> {
  const ids = fields.map((f) => input[f.name]).filter((v): v is string => typeof v === "string");
  if (!ids.length) return input;
  const files = new Map((await findFilesById(deps.db, ids)).map((f) => [f.id, f]));
  const given = { ...input };
  const expires = Math.floor(now.getTime() / 1000) + deps.ttlSeconds;
  for (const field of fields) {
    const id = input[field.name];
    if (typeof id !== "string") continue;
    const file = files.get(id);
    if (!file || file.deletedAt || file.expiresAt <= now) return undefined;
    if (as === "ids") continue;
    given[field.name] =
      deps.store.kind === "s3"
        ? await deps.store.signedUrl(inputFileKey(file.id, file.contentType), deps.ttlSeconds)
        : signedInputFileUrl(deps.publicBaseUrl, deps.secretsKey, file, expires);
  }
  return given;
}

/** An input file's bytes and type, read from the store; undefined when it is gone. */
export async function readInputFile(
  deps: { db: Db; store: OutputStore },
  id: string,
): Promise<{ bytes: Uint8Array; contentType: string } | undefined> {
  const [file] = await findFilesById(deps.db, [id]);
  if (!file || file.deletedAt) return undefined;
  const bytes = await readStoredBytes(deps.store, inputFileKey(file.id, file.contentType));
  return bytes && { bytes, contentType: file.contentType };
}
