// Input files: what a file is (decided by its bytes), which input fields take one, what a field's
// value may be, and the signed URLs through which model servers read them.
import { createHmac, timingSafeEqual } from "node:crypto";
import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";
import { idPattern } from "./ids.js";
import { extensionForMediaType } from "./media.js";

export type MediaKind = "image" | "video" | "audio";
export const MEDIA_KINDS: readonly MediaKind[] = ["image", "video", "audio"];

/**
 * The file types the service takes in, by the extension file-type detects from the bytes: the
 * type stored and served, its kind. Anything else is refused (415), whatever its Content-Type said.
 */
const ACCEPTED: Readonly<Record<string, { contentType: string; kind: MediaKind; ext: string }>> = {
  png: { contentType: "image/png", kind: "image", ext: "png" },
  jpg: { contentType: "image/jpeg", kind: "image", ext: "jpg" },
  webp: { contentType: "image/webp", kind: "image", ext: "webp" },
  gif: { contentType: "image/gif", kind: "image", ext: "gif" },
  mp4: { contentType: "video/mp4", kind: "video", ext: "mp4" },
  // An MP4 whose brand says iTunes video: the same container.
  m4v: { contentType: "video/mp4", kind: "video", ext: "mp4" },
  webm: { contentType: "video/webm", kind: "video", ext: "webm" },
  wav: { contentType: "audio/wav", kind: "audio", ext: "wav" },
  mp3: { contentType: "audio/mpeg", kind: "audio", ext: "mp3" },
  ogg: { contentType: "audio/ogg", kind: "audio", ext: "ogg" },
  oga: { contentType: "audio/ogg", kind: "audio", ext: "ogg" },
  opus: { contentType: "audio/ogg", kind: "audio", ext: "ogg" },
  flac: { contentType: "audio/flac", kind: "audio", ext: "flac" },
};

export const ACCEPTED_FILE_TYPES = [...new Set(Object.values(ACCEPTED).map((a) => a.contentType))];

export interface SniffedFile {
  contentType: string;
  kind: MediaKind;
  ext: string;
  /** An image's size from its header (never decoded); null for video and audio. */
  width: number | null;
  height: number | null;
}

export type SniffResult =
  | { ok: true; file: SniffedFile }
  | { ok: false; reason: "unsupported" | "unreadable_image"; detected?: string };

/**
 * What a file is, from its magic numbers (a client's Content-Type is never believed). An image's
 * dimensions come from its header, so that a "zip bomb" (a small file of a huge image) is refused
 * by its pixel count before anything decodes it.
 */
export async function sniffFile(bytes: Uint8Array): Promise<SniffResult> {
  const detected = await fileTypeFromBuffer(bytes).catch(() => undefined);
  const accepted = detected && ACCEPTED[detected.ext];
  if (!accepted) return { ok: false, reason: "unsupported", ...(detected && { detected: detected.mime }) };
  if (accepted.kind !== "image") return { ok: true, file: { ...accepted, width: null, height: null } };
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    return { ok: false, reason: "unreadable_image" };
  }
  if (!size.width || !size.height) return { ok: false, reason: "unreadable_image" };
  return { ok: true, file: { ...accepted, width: size.width, height: size.height } };
}

/** A model's input field that takes a file: the kinds it accepts (every kind when it names none). */
export interface FileField {
  name: string;
  kinds: readonly MediaKind[];
  /** The largest image, in pixels, the model takes in this field (`x-max-pixels`), if any. */
  maxPixels: number | null;
  /** The only file types it takes (`x-content-types`), if it names any. */
  types: readonly string[] | null;
  /**
   * The largest file, in bytes, the model takes in this field: `x-max-bytes`, or for an image
   * field with `x-max-pixels`, what such an image can need (4 bytes a pixel and room for its
   * headers): a small image padded with megabytes of metadata is refused before any runner
   * reads it whole. null: FILE_MAX_BYTES alone.
   */
  maxBytes: number | null;
}

/** Room for an image's headers and metadata (EXIF, ICC profiles) beyond its pixels. */
const IMAGE_HEADERS_BYTES = 256 * 1024;

/**
 * The file fields of an input schema: top-level properties of `format: "uri"` (what Cog's schemas
 * say of a Path input), narrowed by our `x-media` ("image", or a list of kinds) and
 * `x-content-types` (["image/png", "image/jpeg"]), and limited by `x-max-pixels`.
 */
export function fileFieldsOf(schema: unknown): FileField[] {
  const properties = (schema as { properties?: Record<string, unknown> } | null)?.properties;
  if (!properties || typeof properties !== "object") return [];
  const fields: FileField[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    const p = raw as {
      format?: unknown;
      "x-media"?: unknown;
      "x-max-pixels"?: unknown;
      "x-max-bytes"?: unknown;
      "x-content-types"?: unknown;
    } | null;
    if (p?.format !== "uri") continue;
    const media = p["x-media"];
    const named = (Array.isArray(media) ? media : [media]).filter((m): m is MediaKind =>
      MEDIA_KINDS.includes(m as MediaKind),
    );
    const pixels = p["x-max-pixels"];
    const maxPixels = typeof pixels === "number" && pixels > 0 ? pixels : null;
    const bytes = p["x-max-bytes"];
    const kinds = named.length ? named : MEDIA_KINDS;
    fields.push({
      name,
      kinds,
      maxPixels,
      maxBytes:
        typeof bytes === "number" && bytes > 0
          ? bytes
          : maxPixels && kinds.length === 1 && kinds[0] === "image"
            ? maxPixels * 4 + IMAGE_HEADERS_BYTES
            : null,
      types: Array.isArray(p["x-content-types"])
        ? p["x-content-types"].filter((t): t is string => typeof t === "string")
        : null,
    });
  }
  return fields;
}

const FILE_ID = idPattern("file");

/**
 * Whether a run's input names any file (a value shaped like a file id). Creation turned every file
 * field into one, so an input naming none needs no look-up of its model's file fields: the worker
 * then sends it as it is, without touching the database between a run's start and its model.
 */
export const namesFiles = (input: Record<string, unknown>): boolean =>
  Object.values(input).some((value) => typeof value === "string" && FILE_ID.test(value));

export type FileRef =
  | { kind: "id"; id: string }
  | { kind: "data"; bytes: Uint8Array }
  | { kind: "url"; url: string }
  | { kind: "invalid"; message: string };

/**
 * What a file field's value names: a file of ours (its id, or its URL under one of `filesUrls`, as
 * an upload answered: ours, or Replicate's `urls.get`), a data URL (base64, at most `maxDataBytes`
 * decoded), or an https URL to fetch.
 */
export function parseFileRef(
  value: unknown,
  filesUrls: string | readonly string[],
  maxDataBytes: number,
): FileRef {
  if (typeof value !== "string")
    return { kind: "invalid", message: "expected a file id, an https URL or a data URL" };
  if (FILE_ID.test(value)) return { kind: "id", id: value };
  for (const filesUrl of typeof filesUrls === "string" ? [filesUrls] : filesUrls) {
    const own = value.startsWith(`${filesUrl}/`)
      ? value.slice(filesUrl.length + 1).replace(/\/(content|download)$/, "")
      : "";
    if (FILE_ID.test(own)) return { kind: "id", id: own };
  }
  if (value.startsWith("data:")) {
    const comma = value.indexOf(",");
    if (comma < 0 || !/;base64$/i.test(value.slice(0, comma)))
      return { kind: "invalid", message: "a data URL must be base64 (data:<type>;base64,<data>)" };
    const data = value.slice(comma + 1);
    // Measured before decoding: a huge data URL is refused without making its bytes.
    if (Math.floor((data.length * 3) / 4) > maxDataBytes + 2)
      return {
        kind: "invalid",
        message: `a data URL may hold at most ${maxDataBytes} bytes; upload larger files`,
      };
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data))
      return { kind: "invalid", message: "the data URL is not valid base64" };
    const bytes = Buffer.from(data, "base64");
    if (bytes.length > maxDataBytes)
      return {
        kind: "invalid",
        message: `a data URL may hold at most ${maxDataBytes} bytes; upload larger files`,
      };
    return { kind: "data", bytes };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { kind: "invalid", message: "expected a file id, an https URL or a data URL" };
  }
  if (url.protocol !== "https:") return { kind: "invalid", message: "a file URL must be https" };
  if (url.username || url.password)
    return { kind: "invalid", message: "a file URL may not hold credentials" };
  return { kind: "url", url: url.href };
}

/**
 * Where an input file lives in the store: under a dot-directory, which no public route serves,
 * named with its type's extension (a model server that saves what it fetches, as Cog does, keeps it).
 */
export const inputFileKey = (id: string, contentType: string) =>
  `.inputs/${id}.${extensionForMediaType(contentType)}`;

/** Where a weights file lives in the store: beside the inputs, under a dot-directory of its own. */
export const weightsFileKey = (id: string) => `.weights/${id}.safetensors`;

const signingKey = (secretsKey: Buffer) => createHmac("sha256", secretsKey).update("input-files").digest();

const signature = (secretsKey: Buffer, id: string, expires: number) =>
  createHmac("sha256", signingKey(secretsKey)).update(`${id}.${expires}`).digest("base64url");

/**
 * Where model servers read an input file from the API (a local store):
 * PUBLIC_BASE_URL/files/inputs/<id>.<ext>, signed until `expires` (s).
 */
export function signedInputFileUrl(
  publicBaseUrl: string,
  secretsKey: Buffer,
  file: { id: string; contentType: string },
  expires: number,
) {
  const base = publicBaseUrl.replace(/\/$/, "");
  const name = `${file.id}.${extensionForMediaType(file.contentType)}`;
  return `${base}/files/inputs/${name}?expires=${expires}&signature=${signature(secretsKey, file.id, expires)}`;
}

/** Whether a signed input file URL's parts are genuine and still valid at `now` (s). */
export function inputFileSignatureValid(
  secretsKey: Buffer,
  id: string,
  expires: number,
  given: string,
  now: number,
): boolean {
  if (!FILE_ID.test(id) || !Number.isSafeInteger(expires) || expires < now) return false;
  const expected = Buffer.from(signature(secretsKey, id, expires));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** How long a weights URL lasts at least; one URL serves every run of a window (servers cache by URL). */
export const WEIGHTS_URL_WINDOW_S = 7 * 86_400;

const weightsSignature = (secretsKey: Buffer, sha256: string, expires: number) =>
  createHmac("sha256", signingKey(secretsKey)).update(`weights:${sha256}.${expires}`).digest("base64url");

/**
 * Where model servers read weights from the API: PUBLIC_BASE_URL/files/weights/<sha256>.safetensors,
 * named by their bytes and signed until the end of the window after the current one, so that
 * every run of the same weights within a window (7 days) gives its server the same URL: a server
 * that caches downloads by URL (as Cog models and ComfyUI's LoRA loaders do) loads them once.
 */
export function signedWeightsUrl(
  publicBaseUrl: string,
  secretsKey: Buffer,
  sha256: string,
  now: number,
): string {
  const expires = (Math.floor(now / WEIGHTS_URL_WINDOW_S) + 2) * WEIGHTS_URL_WINDOW_S;
  const base = publicBaseUrl.replace(/\/$/, "");
  return `${base}/files/weights/${sha256}.safetensors?expires=${expires}&signature=${weightsSignature(secretsKey, sha256, expires)}`;
}

/** What a run's `weights` value names. */
export type WeightsRef =
  | { kind: "id"; id: string }
  | { kind: "sha256"; sha256: string }
  | { kind: "fetch"; url: string }
  | { kind: "unknown"; url: string };

/**
 * Reads a run's `weights` value: a URL of ours names weights (the API's `/api/v1/weights/{id}`,
 * or the URL model servers are given, `/files/weights/<sha256>.safetensors`, by their bytes:
 * either way only weights the caller may name are found); another https URL is fetched as new
 * weights; anything else is an id.
 */
export function weightsRef(ref: string, publicBaseUrl: string): WeightsRef {
  const base = publicBaseUrl.replace(/\/$/, "");
  if (ref.startsWith(`${base}/`)) {
    const path = ref.slice(base.length).split(/[?#]/)[0]!;
    const byId = /^\/api\/v1\/weights\/([A-Za-z0-9_]+)$/.exec(path);
    if (byId) return { kind: "id", id: byId[1]! };
    const bySha = /^\/files\/weights\/([0-9a-f]{64})\.safetensors$/.exec(path);
    if (bySha) return { kind: "sha256", sha256: bySha[1]! };
    return { kind: "unknown", url: ref };
  }
  if (/^https:\/\//i.test(ref)) return { kind: "fetch", url: ref };
  return { kind: "id", id: ref };
}

/** Whether a signed weights URL's parts are genuine and still valid at `now` (s). */
export function weightsSignatureValid(
  secretsKey: Buffer,
  sha256: string,
  expires: number,
  given: string,
  now: number,
): boolean {
  if (!/^[0-9a-f]{64}$/.test(sha256) || !Number.isSafeInteger(expires) || expires < now) return false;
  const expected = Buffer.from(weightsSignature(secretsKey, sha256, expires));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
