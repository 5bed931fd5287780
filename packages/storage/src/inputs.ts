import { createHash } from "node:crypto";
import { pipeline, Readable, Transform } from "node:stream";
import { ACCEPTED_FILE_TYPES, inputFileKey, sniffFile, type SniffedFile } from "@svc/core";
import type { OutputStore } from "./store.js";

/** Why an input file was not taken. */
export type FileRefusal =
  "too_large" | "unsupported" | "unreadable_image" | "too_many_pixels" | "empty" | "quota";

export class FileRefused extends Error {
  constructor(
    readonly reason: FileRefusal,
    message: string,
  ) {
    super(message);
    this.name = "FileRefused";
  }
}

export interface InputLimits {
  maxBytes: number;
  maxPixels: number;
}

export interface StoredInput extends SniffedFile {
  size: number;
  sha256: string;
  key: string;
}

/**
 * Enough of a file's start to tell its type and an image's size: magic numbers are in the first
 * bytes, but a JPEG's dimensions follow its metadata (EXIF, ICC profiles), which can be long.
 */
const HEAD_BYTES = 1024 * 1024;

/**
 * Takes in one input file: its type decided by its first bytes (nothing stored when it is not one
 * the service takes, or an image past the pixel limit), then streamed into the store under its id
 * while hashed and counted, past maxBytes cut off with nothing left stored. Memory: the head only.
 */
export async function storeInputFile(
  store: OutputStore,
  id: string,
  source: Readable | Uint8Array,
  limits: InputLimits,
  signal?: AbortSignal,
): Promise<StoredInput> {
  const stream = source instanceof Readable ? source : Readable.from([Buffer.from(source)]);
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let headSize = 0;
  let ended = false;
  try {
    while (headSize < HEAD_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      head.push(chunk);
      headSize += chunk.length;
      if (headSize > limits.maxBytes) throw tooLarge(limits.maxBytes);
    }
    if (!headSize) throw new FileRefused("empty", "The file is empty.");
    const sniffed = await sniffFile(Buffer.concat(head));
    if (!sniffed.ok)
      throw sniffed.reason === "unsupported"
        ? new FileRefused(
            "unsupported",
            `The file is not of a type the service takes (detected: ${sniffed.detected ?? "unknown"}); it takes ${ACCEPTED_FILE_TYPES.join(", ")}.`,
          )
        : new FileRefused("unreadable_image", "The image's header cannot be read.");
    const { file } = sniffed;
    if (file.width && file.height && file.width * file.height > limits.maxPixels)
      throw new FileRefused(
        "too_many_pixels",
        `The image is ${file.width}x${file.height} (${file.width * file.height} pixels); at most ${limits.maxPixels} are taken.`,
      );
    const hash = createHash("sha256");
    let size = 0;
    const key = inputFileKey(id, file.contentType);
    let body: Buffer | Readable;
    if (ended) {
      body = Buffer.concat(head);
      size = body.length;
      hash.update(body);
    } else {
      // The head again, then the rest as it comes; the store's failure (or the limit's) ends the
      // source too (pipeline destroys each stream, and the generator's return ends the iterator).
      const rest = async function* () {
        yield* head;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      };
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > limits.maxBytes) return callback(tooLarge(limits.maxBytes));
          hash.update(chunk);
          callback(null, chunk);
        },
      });
      body = pipeline(Readable.from(rest()), counted, () => {});
    }
    await store.put(key, body, signal);
    return { ...file, size, sha256: hash.digest("hex"), key };
  } finally {
    if (!ended) stream.destroy();
  }
}

const tooLarge = (maxBytes: number) =>
  new FileRefused("too_large", `The file is larger than ${maxBytes} bytes.`);
