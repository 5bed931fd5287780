// Weights an operator publishes for every account (the catalogue's LoRAs): any account's runs may
// then name them, in both modes; their owner keeps them (only the owner deletes them). The change
// and its audit entry are one transaction.
import { appendAudit, setWeightsPublished, type Db } from "@svc/db";
import type { ActedBy } from "./actedBy.js";

export async function publishWeights(db: Db, { actor, reason }: ActedBy, id: string, published: boolean) {
  return db.$transaction(async (tx) => {
    const changed = await setWeightsPublished(tx, id, published);
    if (!changed) return null;
    const state = (w: { publishedAt: Date | null }) => ({
      published_at: w.publishedAt?.toISOString() ?? null,
    });
    await appendAudit(tx, {
      actor,
      action: published ? "weights.publish" : "weights.unpublish",
      accountId: changed.after.accountId,
      targetId: id,
      before: state(changed.before),
      after: state(changed.after),
      reason,
    });
    return changed.after;
  });
}
