import { z } from "zod";

/** Keyset position (created_at, id) of the last item of a page, as an opaque string. */
export interface Position {
  createdAt: Date;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString("base64url");
}

/** Years 1 to 9999: what both an ISO 8601 string and Postgres' timestamptz hold without surprise. */
export function isStorableDate(date: Date): boolean {
  const year = date.getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** An ISO 8601 date-time with an offset, as a Date within the storable years. */
export const dateTimeQuery = z.iso
  .datetime({ offset: true })
  .transform((s) => new Date(s))
  .refine(isStorableDate, "expected a date-time from year 0001 to 9999");

const ID = /^[A-Za-z0-9_]{1,64}$/;

export const cursorSchema = z
  .string()
  .transform((text, ctx): Position => {
    try {
      const [t, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as [unknown, unknown];
      const createdAt = new Date(typeof t === "string" ? t : Number.NaN);
      if (typeof id === "string" && ID.test(id) && isStorableDate(createdAt)) return { createdAt, id };
    } catch {
      // reported below
    }
    ctx.addIssue({ code: "custom", message: "invalid cursor" });
    return z.NEVER;
  })
  .optional();

/** The page (limit items) and the cursor of the next one, from a query that asked for limit + 1. */
export function paginate<T extends Position>(
  items: T[],
  limit: number,
): { page: T[]; nextCursor: string | null } {
  const page = items.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: items.length > limit && last ? encodeCursor(last) : null };
}
