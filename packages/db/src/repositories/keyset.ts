/** The position of the last item of a page: newest-first lists order by (created_at, id) descending. */
export interface Position {
  createdAt: Date;
  id: string;
}

/** The `where` part of a newest-first keyset page: items strictly after `position`. */
export function pastPosition(position: Position | undefined) {
  return position
    ? {
        OR: [
          { createdAt: { lt: position.createdAt } },
          { createdAt: position.createdAt, id: { lt: position.id } },
        ],
      }
    : {};
}

export const NEWEST_FIRST = [{ createdAt: "desc" as const }, { id: "desc" as const }];
