// A batch's input file (OpenAI's files of purpose "batch", issue #61): JSON Lines stored as they
// come and recorded as a file of the owner's (the input files' quota and retention), read back
// line by line when a batch is made of it.
import { Readable } from "node:stream";
import { createFileWithinQuota, findFile, newFileId, type File } from "@svc/db";
import { BATCH_FILE_TYPE, FileRefused, storeBatchFile } from "@svc/storage";
import { inputFileKey } from "@svc/core";
import type { FileDeps, FileOwner } from "../files/files.js";

/** Takes in a batch file of at most `maxBytes`; throws FileRefused (nothing kept) past it or past the quota. */
export async function ingestBatchFile(
  deps: FileDeps,
  owner: FileOwner,
  source: Readable | Uint8Array,
  maxBytes: number,
): Promise<File> {
  const id = newFileId();
  const account = { accountId: owner.accountId, mode: owner.mode };
  const stored = await storeBatchFile(deps.store, id, source, maxBytes);
  const createdAt = new Date();
  try {
    const made = await createFileWithinQuota(deps.db, account, id, deps.files.quotaBytes[owner.mode], {
      apiKeyId: owner.apiKeyId,
      contentType: BATCH_FILE_TYPE,
      size: stored.size,
      sha256: stored.sha256,
      width: null,
      height: null,
      origin: "upload",
      createdAt,
      expiresAt: new Date(createdAt.getTime() + deps.files.retentionHours * 3_600_000),
    });
    if (!made) throw new FileRefused("quota", "The account's input files would pass their quota.");
    return made;
  } catch (error) {
    await deps.store.remove([stored.key]).catch(() => {});
    throw error;
  }
}

/** The owner's batch file, while it is there (null: none, or a file of another kind). */
export async function findBatchFile(deps: Pick<FileDeps, "db">, owner: FileOwner, id: string) {
  const file = await findFile(deps.db, { accountId: owner.accountId, mode: owner.mode }, id);
  return file?.contentType === BATCH_FILE_TYPE ? file : null;
}

/** A stored batch file's bytes, as a stream (empty when they are gone). */
export async function batchFileChunks(
  deps: Pick<FileDeps, "store">,
  file: File,
): Promise<AsyncIterable<Buffer>> {
  const object = await deps.store.read(inputFileKey(file.id, file.contentType), {});
  return (object?.body as AsyncIterable<Buffer> | undefined) ?? Readable.from([]);
}
