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

/** Left in an output directory whose files retention deleted, so that their URLs answer 410. */
export const EXPIRED_MARKER = ".expired";
