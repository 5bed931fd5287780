import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type GetObjectCommandOutput,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Readable } from "node:stream";
import { EXPIRED_MARKER, OUTPUT_TOKEN, servedMediaType } from "@svc/core";
import { RangeNotSatisfiable, type S3OutputStore, type StoredObject } from "./store.js";

export interface S3Settings {
  bucket: string;
  /** Put before every key ("outputs/" gives outputs/<token>/<name>). */
  prefix: string;
  region: string;
  /** For stores other than AWS (MinIO, R2, GCS); unset: AWS's own endpoint for the region. */
  endpoint?: string;
  /** The endpoint that clients reach, when it differs from the one this host uses (signed URLs). */
  publicEndpoint?: string;
  forcePathStyle: boolean;
}

// Multipart uploads hold at most PART_BYTES x PARTS_IN_FLIGHT of a stream in memory.
const PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 1;
// DeleteObjects takes at most 1,000 keys.
const DELETE_BATCH = 1_000;

const statusOf = (error: unknown) =>
  error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;

function client(s: S3Settings, endpoint: string | undefined): S3Client {
  return new S3Client({
    region: s.region,
    ...(endpoint && { endpoint }),
    forcePathStyle: s.forcePathStyle,
    // Checksums only where S3 requires them: several S3-compatible stores reject or mangle the
    // SDK's default streaming checksums (aws-chunked trailers).
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** Headers a client needs from a GetObject, in HTTP's spelling. */
function objectHeaders(o: GetObjectCommandOutput): Record<string, string> {
  const headers: Record<string, string> = { "accept-ranges": "bytes" };
  if (o.ContentLength !== undefined) headers["content-length"] = String(o.ContentLength);
  if (o.ContentRange) headers["content-range"] = o.ContentRange;
  if (o.ETag) headers.etag = o.ETag;
  if (o.LastModified) headers["last-modified"] = o.LastModified.toUTCString();
  return headers;
}

/** One bucket under a prefix, as the store's steps use it. */
interface Bucket {
  s3: S3Client;
  bucket: string;
  prefix: string;
  objectKey(key: string): string;
}

async function deleteKeys(b: Bucket, keys: string[]) {
  for (let i = 0; i < keys.length; i += DELETE_BATCH) {
    const batch = keys.slice(i, i + DELETE_BATCH);
    const { Errors } = await b.s3.send(
      new DeleteObjectsCommand({
        Bucket: b.bucket,
        Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
      }),
    );
    if (Errors?.length) throw new Error(`deleting outputs failed: ${Errors[0]!.Code} ${Errors[0]!.Message}`);
  }
}

/** A file stored as an object, streamed in parts; a failed or aborted upload leaves nothing. */
async function putObject(b: Bucket, key: string, body: Readable | Uint8Array, signal?: AbortSignal) {
  const type = servedMediaType(key);
  const abort = new AbortController();
  const onAbort = () => abort.abort(signal!.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  // When the stream fails, that is the cause to report (not what aborting the upload says).
  let streamError: unknown;
  if (body instanceof Readable) body.once("error", (error) => (streamError ??= error));
  try {
    signal?.throwIfAborted();
    // A failed multipart upload is aborted by the SDK, so no partial object ever appears.
    await new Upload({
      client: b.s3,
      params: {
        Bucket: b.bucket,
        Key: b.objectKey(key),
        Body: body instanceof Readable ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        ContentType: type ?? "application/octet-stream",
        ...(!type && { ContentDisposition: "attachment" }),
      },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      abortController: abort,
    }).done();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw streamError ?? error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

async function readObject(
  b: Bucket,
  key: string,
  conditions: Parameters<S3OutputStore["read"]>[1],
  signal?: AbortSignal,
): Promise<StoredObject | null> {
  try {
    const o = await b.s3.send(
      new GetObjectCommand({
        Bucket: b.bucket,
        Key: b.objectKey(key),
        Range: conditions.range,
        IfNoneMatch: conditions.ifNoneMatch,
        ...(conditions.ifModifiedSince && {
          IfModifiedSince: new Date(conditions.ifModifiedSince),
        }),
      }),
      { abortSignal: signal },
    );
    return {
      status: o.ContentRange ? 206 : 200,
      body: o.Body as Readable,
      headers: objectHeaders(o),
    };
  } catch (error) {
    const status = statusOf(error);
    if (status === 404) return null;
    if (status === 304) return { status: 304, headers: {} };
    if (status === 416) throw new RangeNotSatisfiable();
    throw error;
  }
}

/**
 * One pass over the prefix's listing (keys come sorted, so a token's objects are adjacent and its
 * marker, ".expired", comes first). A lifecycle rule on the bucket is the alternative for large
 * buckets (OUTPUT_RETENTION_DAYS=0 then; expired URLs answer 404 instead of 410).
 */
async function expireOutputs(b: Bucket, before: Date, limit: number): Promise<number> {
  let expired = 0;
  let doomed: string[] = [];
  let token: { id: string; marked: boolean; old: boolean; keys: string[] } | undefined;
  const settle = async () => {
    if (token?.old && token.keys.length) {
      if (!token.marked) {
        await b.s3.send(
          new PutObjectCommand({
            Bucket: b.bucket,
            Key: b.objectKey(`${token.id}/${EXPIRED_MARKER}`),
            Body: new Uint8Array(0),
          }),
        );
        expired++;
      }
      doomed.push(...token.keys);
    }
    if (doomed.length >= DELETE_BATCH) {
      await deleteKeys(b, doomed);
      doomed = [];
    }
  };
  // Pages follow the last key seen (StartAfter): where the next page starts stays plain while
  // the keys just read are being deleted.
  let after: string | undefined;
  let more = true;
  while (more && expired < limit) {
    const page = await b.s3.send(
      new ListObjectsV2Command({ Bucket: b.bucket, Prefix: b.prefix, ...(after && { StartAfter: after }) }),
    );
    for (const object of page.Contents ?? []) {
      after = object.Key!;
      const [id, name] = object.Key!.slice(b.prefix.length).split("/");
      if (!id || !name || !OUTPUT_TOKEN.test(id)) continue;
      if (token?.id !== id) {
        await settle();
        if (expired >= limit) break;
        token = { id, marked: false, old: true, keys: [] };
      }
      if (name === EXPIRED_MARKER) token.marked = true;
      else {
        token.keys.push(object.Key!);
        if (!object.LastModified || object.LastModified >= before) token.old = false;
      }
    }
    more = page.IsTruncated === true;
  }
  if (expired < limit) await settle();
  if (doomed.length) await deleteKeys(b, doomed);
  return expired;
}

/** Outputs as objects of one bucket, under a prefix; any S3-compatible store. */
export function s3Store(s: S3Settings): S3OutputStore {
  const s3 = client(s, s.endpoint);
  const signer = s.publicEndpoint ? client(s, s.publicEndpoint) : s3;
  const b: Bucket = { s3, bucket: s.bucket, prefix: s.prefix, objectKey: (key) => `${s.prefix}${key}` };
  return {
    kind: "s3",
    put: (key, body, signal) => putObject(b, key, body, signal),
    remove: (keys) => deleteKeys(b, keys.map(b.objectKey)),
    read: (key, conditions, signal) => readObject(b, key, conditions, signal),
    signedUrl: (key, seconds) =>
      getSignedUrl(signer, new GetObjectCommand({ Bucket: b.bucket, Key: b.objectKey(key) }), {
        expiresIn: seconds,
      }),
    async isExpired(token) {
      try {
        await s3.send(
          new HeadObjectCommand({ Bucket: b.bucket, Key: b.objectKey(`${token}/${EXPIRED_MARKER}`) }),
        );
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        throw error;
      }
    },
    expire: (before, limit = 1_000) => expireOutputs(b, before, limit),
    close: () => {
      s3.destroy();
      if (signer !== s3) signer.destroy();
    },
  };
}
