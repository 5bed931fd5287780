import { createHash } from "node:crypto";
import { pipeline, Readable, Transform } from "node:stream";
import {
  ACCEPTED_FILE_TYPES,
  inputFileKey,
  readSafetensorsHeader,
  sniffFile,
  weightsFileKey,
  type SafetensorsHeader,
  type SniffedFile,
} from "@svc/core";
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

/** A source read from its start: its first bytes held, the rest still to come. */
interface Opened {
  head: Buffer[];
  headSize: number;
  /** The whole source is in the head. */
  ended: boolean;
  iterator: AsyncIterator<Buffer>;
  stream: Readable;
}

function open(source: Readable | Uint8Array): Opened {
  const stream = source instanceof Readable ? source : Readable.from([Buffer.from(source)]);
  return {
    head: [],
    headSize: 0,
    ended: false,
    iterator: stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>,
    stream,
  };
}

/** Reads until the head holds `bytes` (or the source ends); past maxBytes, too large. */
async function readHead(o: Opened, bytes: number, maxBytes: number): Promise<Buffer> {
  while (o.headSize < bytes && !o.ended) {
    const next = await o.iterator.next();
    if (next.done) {
      o.ended = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    o.head.push(chunk);
    o.headSize += chunk.length;
    if (o.headSize > maxBytes) throw tooLarge(maxBytes);
  }
  if (!o.headSize) throw new FileRefused("empty", "The file is empty.");
  return Buffer.concat(o.head);
}

/**
 * The head again, then the rest as it comes, into the store under `key` while hashed and counted;
 * past maxBytes cut off with nothing left stored (the store's failure, or the limit's, ends the
 * source too: pipeline destroys each stream, and the generator's return ends the iterator).
 */
async function storeRest(
  store: OutputStore,
  key: string,
  o: Opened,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  let size = 0;
  let body: Buffer | Readable;
  if (o.ended) {
    body = Buffer.concat(o.head);
    size = body.length;
    hash.update(body);
  } else {
    const { head, iterator } = o;
    const rest = async function* () {
      yield* head;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    };
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > maxBytes) return callback(tooLarge(maxBytes));
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    body = pipeline(Readable.from(rest()), counted, () => {});
  }
  await store.put(key, body, signal);
  return { size, sha256: hash.digest("hex") };
}

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
  const o = open(source);
  try {
    const sniffed = await sniffFile(await readHead(o, HEAD_BYTES, limits.maxBytes));
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
    const key = inputFileKey(id, file.contentType);
    return { ...file, ...(await storeRest(store, key, o, limits.maxBytes, signal)), key };
  } finally {
    if (!o.ended) o.stream.destroy();
  }
}

/**
 * A batch's JSON Lines file (OpenAI's files of purpose "batch"): stored as it comes, counted and
 * hashed, past maxBytes refused (nothing kept); its lines are read when a batch is made of it.
 */
export async function storeBatchFile(
  store: OutputStore,
  id: string,
  source: Readable | Uint8Array,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<{ key: string; size: number; sha256: string }> {
  const o = open(source);
  try {
    const key = inputFileKey(id, BATCH_FILE_TYPE);
    return { ...(await storeRest(store, key, o, maxBytes, signal)), key };
  } finally {
    if (!o.ended) o.stream.destroy();
  }
}

/** The media type batch files are recorded with. */
export const BATCH_FILE_TYPE = "application/jsonl";

export interface StoredWeights {
  header: SafetensorsHeader;
  size: number;
  sha256: string;
  key: string;
}

/**
 * Takes in a weights file: only safetensors, its header read and checked before anything is
 * stored (a pickle, a header that lies, tensors past the file: 415), then streamed into the store
 * under its id, hashed and counted; a file whose length is not what its header says is refused
 * and nothing is left stored. Memory: the header only (at most 100 MB, as the format allows).
 */
export async function storeWeightsFile(
  store: OutputStore,
  id: string,
  source: Readable | Uint8Array,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<StoredWeights> {
  const o = open(source);
  const key = weightsFileKey(id);
  try {
    let read = readSafetensorsHeader(await readHead(o, 8, maxBytes));
    while (read.kind === "need" && !o.ended)
      read = readSafetensorsHeader(await readHead(o, read.bytes, maxBytes));
    if (read.kind !== "ok")
      throw new FileRefused(
        "unsupported",
        `The file is not safetensors (${read.kind === "refused" ? read.message : "it ends inside its header"}); weights are taken as .safetensors only.`,
      );
    const { header } = read;
    const expected = header.headerBytes + header.dataBytes;
    if (expected > maxBytes) throw tooLarge(maxBytes);
    const stored = await storeRest(store, key, o, maxBytes, signal);
    if (stored.size !== expected) {
      await store.remove([key]).catch(() => {});
      throw new FileRefused(
        "unsupported",
        `The file is ${stored.size} bytes, but its safetensors header describes ${expected}.`,
      );
    }
    return { header, ...stored, key };
  } finally {
    if (!o.ended) o.stream.destroy();
  }
}

const tooLarge = (maxBytes: number) =>
  new FileRefused("too_large", `The file is larger than ${maxBytes} bytes.`);
