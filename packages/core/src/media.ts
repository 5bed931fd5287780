import { createHmac, timingSafeEqual } from "node:crypto";
import { randomBase62 } from "./ids.js";
/**
 * The media types of outputs the service stores and serves inline, by file extension. A file
 * with any other extension is served as a download (application/octet-stream, attachment), so an
 * output can never be active content (HTML, SVG, scripts) on the API's origin.
 */
export const OUTPUT_MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  mp4: "video/mp4",
  webm: "video/webm",
  wav: "audio/wav",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  flac: "audio/flac",
};

const ALIASES: Readonly<Record<string, string>> = { "audio/x-wav": "wav", "audio/wave": "wav" };

/** The extension to store a file under, from the Content-Type it came with ("bin" when unknown). */
export function extensionForMediaType(contentType: string): string {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return (
    ALIASES[type] ?? Object.entries(OUTPUT_MEDIA_TYPES).find(([, known]) => known === type)?.[0] ?? "bin"
  );
}

/** The type a stored file is served with, or null for one that must be downloaded, not shown. */
export function servedMediaType(fileName: string): string | null {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  return (ext && OUTPUT_MEDIA_TYPES[ext]) || null;
}

/** An output directory's name (OUTPUT_DIR/<token>/<file>): "out_" and 22 base62 characters. */
export const OUTPUT_TOKEN = /^out_[0-9A-Za-z]{22}$/;

// An execution's token says which run it was made for: 11 random characters, then 11 of an HMAC
// (SECRETS_KEY) of the run id and them. So a run's own files are told from any of our URLs its
// output merely names (an echo of another run's URL): only the key can mint a token of a run.
// The file's own name adds 128 random bits, so a token names no file by itself.
const NONCE = 11;
const tokenKey = (secretsKey: Buffer) => createHmac("sha256", secretsKey).update("output-tokens").digest();
function tokenMac(secretsKey: Buffer, runId: string, nonce: string): string {
  const digest = createHmac("sha256", tokenKey(secretsKey)).update(`${runId}.${nonce}`).digest();
  let mac = "";
  for (let i = 0; mac.length < 22 - NONCE; i++) mac += BASE62[digest[i]! % 62];
  return mac;
}
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new execution's token for `runId`'s files. */
export function runOutputToken(secretsKey: Buffer, runId: string): string {
  const nonce = randomBase62(NONCE);
  return `out_${nonce}${tokenMac(secretsKey, runId, nonce)}`;
}

/** Whether an output token was minted for `runId` (its files are that run's own). */
export function isTokenOfRun(secretsKey: Buffer, runId: string, token: string): boolean {
  if (!OUTPUT_TOKEN.test(token)) return false;
  const nonce = token.slice(4, 4 + NONCE);
  const expected = Buffer.from(tokenMac(secretsKey, runId, nonce));
  const given = Buffer.from(token.slice(4 + NONCE));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The files a run made, among the output URLs its output holds (in the output's order): those
 * under a token minted for it. Never every URL of ours in it: an output may name another run's.
 */
export function runFilesIn(
  output: unknown,
  publicBaseUrl: string,
  secretsKey: Buffer,
  runId: string,
): [url: string, key: string][] {
  return [...outputKeysIn(output, publicBaseUrl)].filter(([, key]) =>
    isTokenOfRun(secretsKey, runId, key.slice(0, key.indexOf("/"))),
  );
}

/** Left in an output directory whose files retention deleted, so that their URLs answer 410. */
export const EXPIRED_MARKER = ".expired";

/** An output file's name in its directory, as the generators and the Cog copy write it. */
export const OUTPUT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Where the API serves an output: the key `<token>/<name>` under PUBLIC_BASE_URL/files/. */
export function outputUrl(publicBaseUrl: string, key: string): string {
  return `${publicBaseUrl.replace(/\/$/, "")}/files/${key}`;
}

/**
 * The output keys that `value` refers to, at any depth: each string that is one of this service's
 * output URLs (PUBLIC_BASE_URL/files/<token>/<name>), mapped to its key. A run's output holds
 * these stable URLs; what clients are shown may differ (signed URLs, made at each read).
 */
export function outputKeysIn(value: unknown, publicBaseUrl: string): Map<string, string> {
  const prefix = outputUrl(publicBaseUrl, "");
  const found = new Map<string, string>();
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      if (!v.startsWith(prefix)) return;
      const [token, name, ...rest] = v.slice(prefix.length).split("/");
      if (!rest.length && OUTPUT_TOKEN.test(token ?? "") && OUTPUT_NAME.test(name ?? ""))
        found.set(v, `${token}/${name}`);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype)
      Object.values(v).forEach(visit);
  };
  visit(value);
  return found;
}

/**
 * A copy of `value` with each string found in `replacements` replaced; arrays and plain objects are
 * copied, anything else (a Date) kept as it is.
 */
export function replaceStrings<T>(value: T, replacements: ReadonlyMap<string, string>): T {
  const visit = (v: unknown): unknown => {
    if (typeof v === "string") return replacements.get(v) ?? v;
    if (Array.isArray(v)) return v.map(visit);
    if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype)
      return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, visit(inner)]));
    return v;
  };
  return visit(value) as T;
}

/** The interface spec's image_size presets: name -> [width, height] in pixels. */
export const IMAGE_SIZES: Record<string, [number, number]> = {
  square_hd: [1024, 1024],
  landscape_16_9: [1024, 576],
  portrait_16_9: [576, 1024],
  landscape_4_3: [1024, 768],
  portrait_4_3: [768, 1024],
};

/** The input field of an image size preset, as a model's JSON Schema declares it. */
export const imageSizeField = () => ({
  type: "string",
  enum: Object.keys(IMAGE_SIZES),
  default: "square_hd",
  description: `Output size preset: ${Object.entries(IMAGE_SIZES)
    .map(([k, [w, h]]) => `${k} ${w}x${h}`)
    .join(", ")}.`,
});

/**
 * video_size presets: name -> [width, height] in pixels. The built-in clips make the small ones;
 * models on video servers take the 720p ones (OpenAI's 1280x720 and 720x1280).
 */
export const VIDEO_SIZES: Record<string, [number, number]> = {
  landscape_16_9: [320, 180],
  square: [240, 240],
  portrait_16_9: [180, 320],
  landscape_720p: [1280, 720],
  portrait_720p: [720, 1280],
};
