import type { Readable } from "node:stream";

/** A stored output as the API serves it through PUBLIC_BASE_URL/files/<key>. */
export interface StoredObject {
  /** 200, or 206 for a satisfied Range, or 304 when the client's copy is current. */
  status: 200 | 206 | 304;
  body?: Readable;
  headers: Record<string, string>;
}

/** Conditions and range of a client's GET, passed on to the store. */
export interface ReadConditions {
  range?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
}

interface Common {
  /**
   * Writes one object (key `<token>/<name>`) from bytes or a stream, never holding a whole stream in
   * memory. Readers never see a partial object: a failed or aborted write leaves nothing behind.
   */
  put(key: string, body: Readable | Uint8Array, signal?: AbortSignal): Promise<void>;
  /**
   * The object, or null when there is none under that key. A local store answers the whole file
   * (200) whatever the conditions; its outputs are served by express.static, which has its own.
   */
  read(key: string, conditions: ReadConditions, signal?: AbortSignal): Promise<StoredObject | null>;
  /** Deletes these objects (keys `<token>/<name>`); a missing one is no error. */
  remove(keys: readonly string[]): Promise<void>;
  /** True when retention deleted the outputs under this token (their URLs answer 410). */
  isExpired(token: string): Promise<boolean>;
  /**
   * Retention: deletes the outputs of up to `limit` tokens whose every file was written before
   * `before`, leaving a marker per token so that its URLs answer 410 rather than 404. Safe on every
   * worker replica at once; an interrupted pass is finished by the next one.
   */
  expire(before: Date, limit?: number): Promise<number>;
  /** Releases the store's connections. */
  close(): void;
}

/** Files under a directory that the API and the workers share (one host). */
export interface LocalOutputStore extends Common {
  kind: "local";
  dir: string;
}

/** An S3-compatible bucket: the API and the workers share nothing but the bucket. */
export interface S3OutputStore extends Common {
  kind: "s3";
  /** A presigned GET URL of the object, valid for `seconds`. */
  signedUrl(key: string, seconds: number): Promise<string>;
}

export type OutputStore = LocalOutputStore | S3OutputStore;

/** A range that the object cannot satisfy (HTTP 416). */
export class RangeNotSatisfiable extends Error {
  constructor() {
    super("Range Not Satisfiable");
    this.name = "RangeNotSatisfiable";
  }
}

/** A stored file's bytes, whole (for a worker's runner or a synchronous answer); undefined when gone. */
export async function readStoredBytes(
  store: Pick<OutputStore, "read">,
  key: string,
  signal?: AbortSignal,
): Promise<Buffer | undefined> {
  const object = await store.read(key, {}, signal);
  if (!object?.body) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
