// Making a batch (issue #61): its row, then its lines read one at a time (from the request's items
// or a JSONL file, streamed: memory does not grow with the batch), each checked as a run's input
// is and stored as an item or as an error line, in chunks; then it opens for admission. A bad
// line never refuses the batch; too many lines do (nothing is kept).
import {
  ApiError,
  BATCH_LINE_MAX_BYTES,
  BATCH_MAX_ITEMS,
  BATCH_WINDOW_MS,
  parseBatchItem,
  parseBatchLine,
  type BatchLineError,
  type ParsedBatchLine,
} from "@svc/core";
import {
  addBatchItems,
  createBatchRow,
  newBatchId,
  openBatch,
  type Batch,
  type Db,
  type NewBatch,
  type NewBatchItem,
  type Owner,
} from "@svc/db";

/** A line's input made a run's (validated, files and LoRAs resolved), or its refusal (an ApiError). */
export type PrepareInput = (
  input: Record<string, unknown>,
) => Promise<{ input: Record<string, unknown>; weights: readonly string[] }>;

export interface NewBatchSpec extends Omit<NewBatch, "id" | "expiresAt"> {
  /** How a line's path is named in its error (ours: input.prompt; OpenAI's: body.prompt). */
  paramOf?: (path: string) => string;
}

const CHUNK = 500;

/** A line's refusal as its error line says it: the first problem, at the field it names. */
function lineError(error: unknown, paramOf: (path: string) => string): BatchLineError {
  if (error instanceof ApiError && error.status < 500) {
    const detail = error.details?.[0];
    return {
      code: error.code.toLowerCase(),
      message: detail ? `${detail.path}: ${detail.message}` : error.message,
      param: detail ? paramOf(detail.path) : null,
    };
  }
  throw error;
}

/** A line too long to read: its rest is skipped unread. */
export const LINE_TOO_LONG = Symbol("line too long");

/**
 * JSONL text in chunks as its lines' text, one at a time (the last without a newline too; blank
 * lines skipped). A line longer than BATCH_LINE_MAX_BYTES is LINE_TOO_LONG, its rest skipped
 * unread into memory; past `maxBytes` in all, 413: memory stays bounded whatever the body.
 */
export async function* jsonlTexts(
  chunks: AsyncIterable<Buffer | string>,
  maxBytes: number,
): AsyncGenerator<string | typeof LINE_TOO_LONG> {
  const decoder = new TextDecoder();
  let rest = "";
  let skipping = false;
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes > maxBytes)
      throw new ApiError("PAYLOAD_TOO_LARGE", `A batch's JSONL is at most ${maxBytes} bytes.`);
    rest += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = rest.indexOf("\n")) >= 0) {
      const line = rest.slice(0, at).trim();
      rest = rest.slice(at + 1);
      if (skipping) skipping = false;
      else if (line) yield line;
    }
    if (rest.length > BATCH_LINE_MAX_BYTES) {
      if (!skipping) yield LINE_TOO_LONG;
      skipping = true;
      rest = "";
    }
  }
  if (rest.trim() && !skipping) yield rest.trim();
}

/** JSONL lines read as items by `read` (ours: parseBatchLine), a line too long an error line. */
export async function* jsonlLines(
  chunks: AsyncIterable<Buffer | string>,
  maxBytes: number,
  read: (text: string) => ParsedBatchLine = parseBatchLine,
): AsyncGenerator<ParsedBatchLine> {
  for await (const text of jsonlTexts(chunks, maxBytes))
    yield text === LINE_TOO_LONG
      ? {
          ok: false,
          customId: null,
          error: {
            code: "line_too_long",
            message: `A line is at most ${BATCH_LINE_MAX_BYTES} bytes.`,
            param: null,
          },
        }
      : read(text);
}

/** The request's `items` as lines. */
export async function* itemLines(items: readonly unknown[]): AsyncGenerator<ParsedBatchLine> {
  for (const item of items) yield parseBatchItem(item);
}

/**
 * Makes a batch of `lines` for the owner: each line checked by `prepare` and stored in order
 * (line numbers from 1), then open. Throws 400 past BATCH_MAX_ITEMS lines (the batch and its
 * lines deleted), and whatever `prepare` throws that is not a refusal of the line.
 */
export async function createBatch(
  db: Db,
  owner: Owner,
  spec: NewBatchSpec,
  lines: AsyncIterable<ParsedBatchLine>,
  prepare: PrepareInput,
): Promise<Batch> {
  const { paramOf = (p: string) => p, ...fields } = spec;
  const batch = await createBatchRow(db, owner, {
    ...fields,
    id: newBatchId(),
    expiresAt: new Date(Date.now() + BATCH_WINDOW_MS),
  });
  try {
    let line = 0;
    let invalid = 0;
    let chunk: NewBatchItem[] = [];
    for await (const parsed of lines) {
      if (++line > BATCH_MAX_ITEMS)
        throw new ApiError("VALIDATION_ERROR", `A batch holds at most ${BATCH_MAX_ITEMS} lines.`, [
          { path: "items", message: `more than ${BATCH_MAX_ITEMS} lines` },
        ]);
      const item = parsed.ok
        ? await prepare(parsed.input).then(
            (made): NewBatchItem => ({ line, customId: parsed.customId, ...made }),
            (error: unknown): NewBatchItem => ({
              line,
              customId: parsed.customId,
              error: lineError(error, paramOf),
            }),
          )
        : { line, customId: parsed.customId, error: parsed.error };
      if ("error" in item) invalid++;
      chunk.push(item);
      if (chunk.length >= CHUNK) {
        await addBatchItems(db, batch.id, chunk);
        chunk = [];
      }
    }
    await addBatchItems(db, batch.id, chunk);
    if (!line)
      throw new ApiError("VALIDATION_ERROR", "A batch has at least one line.", [
        { path: "items", message: "no lines" },
      ]);
    return await openBatch(db, batch.id, line, invalid);
  } catch (error) {
    await db.batch.delete({ where: { id: batch.id } }).catch(() => {});
    throw error;
  }
}
