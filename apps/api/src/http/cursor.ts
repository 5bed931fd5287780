import { z } from "zod";

/** Keyset position (created_at, id) of the last item of a page, as an opaque string. */
export interface Position {
  createdAt: Date;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString("base64url");
}

export const cursorSchema = z
  .string()
  .transform((text, ctx): Position => {
    try {
      const [t, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as [string, string];
      const createdAt = new Date(t);
      if (typeof id === "string" && !Number.isNaN(createdAt.getTime())) return { createdAt, id };
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
