import type { Logger } from "@svc/logger";
import type { Dispatched } from "@svc/queue";

/** A slot's next run, sent to the slot as its current run here released it (a claim). */
export interface Claim {
  next: Dispatched;
  begun: Promise<boolean>;
}

/**
 * The slots' next runs this worker holds (issue #62; the scheduler's side is state.lua's
 * nextRuns): a run executing here -> the next run of its slot, leased to this worker and sent to
 * the slot the moment that run releases it, before the scheduler hears of it. The release then
 * claims it; a claim the scheduler refuses (the next run's lease lapsed meanwhile) withdraws the
 * work sent. Their leases are renewed with the runs executing here (`held`).
 *
 * A next run that is a batch item is sent first only while no interactive run waits in its pool,
 * as this worker last heard (`heard`): from the enqueue that left one waiting (a message on
 * INTERACTIVE_WAITING_CHANNEL) or from its last release there. Else the release decides, and gives
 * the place to the interactive run. Only a batch item sent in the instant before the message
 * arrives starts first (one per worker at most: the release's answer says so too).
 *
 * Sending first is safe while only this worker can free the slot: a worker whose event loop was
 * blocked for `stallMs` may have had its run taken over by another (RUN_LOCK_MS) or its leases
 * lapse, so it drops every next run it holds; the release that frees such a slot answers its next
 * run as any run leased.
 */
export function nextRunsHeldHere(deps: {
  /** The leases this worker renews. */
  held: Set<string>;
  stallMs: number;
  logger: Logger;
  /** Whether this worker still takes work: one that stops sends no next run itself. */
  accepting(): boolean;
  /** Sends a run's work to its slot (Runner.begin). */
  begin?(dispatched: Dispatched, here: boolean): Promise<boolean>;
  /** Stops the work sent for a claimed next run that did not get its slot (Runner.abandon). */
  withdraw?(dispatched: Dispatched): Promise<void>;
  handedOver?(pool: string, seconds: number): void;
}) {
  const { held, stallMs, logger } = deps;
  const nextAfter = new Map<string, Dispatched>();
  /** Pools where the last release from here found interactive runs waiting. */
  const interactiveWaiting = new Set<string>();
  let lastBeat = Date.now();
  const drop = () => {
    for (const next of nextAfter.values()) held.delete(next.runId);
    nextAfter.clear();
  };
  const beat = setInterval(
    () => {
      const now = Date.now();
      if (now - lastBeat > stallMs) drop();
      lastBeat = now;
    },
    Math.max(50, Math.floor(stallMs / 4)),
  );
  beat.unref();
  return {
    /**
     * Keeps the slots' next runs a release answered: each goes after the run on its slot that
     * executes here (`onSlot`: slot -> run). One whose slot's run went to another worker is not
     * held: that worker's release gives it the slot, or its lease lapses and it waits again.
     */
    keep(next: readonly Dispatched[], onSlot: ReadonlyMap<string, string>) {
      for (const n of next) {
        const before = onSlot.get(n.slot);
        if (!before) continue;
        nextAfter.set(before, n);
        held.add(n.runId);
      }
    },
    /** What a release answered about the pools it freed slots in: whether interactive runs wait there. */
    heard(waiting: ReadonlyMap<string, boolean>) {
      for (const [pool, yes] of waiting)
        if (yes) interactiveWaiting.add(pool);
        else interactiveWaiting.delete(pool);
    },
    /** The next run of the slot `runId` is releasing, sent now (undefined: none to claim). */
    claim(runId: string): Claim | undefined {
      const next = nextAfter.get(runId);
      if (!next) return undefined;
      nextAfter.delete(runId);
      if (
        !deps.accepting() ||
        Date.now() - lastBeat > stallMs ||
        (next.batch && interactiveWaiting.has(next.pool))
      ) {
        // The release gives it the slot all the same, and answers it as any run leased.
        held.delete(next.runId);
        return undefined;
      }
      const at = performance.now();
      const begun = deps.begin ? deps.begin(next, true).catch(() => false) : Promise.resolve(false);
      void begun.then((yes) => yes && deps.handedOver?.(next.pool, (performance.now() - at) / 1000));
      return { next, begun };
    },
    /** A claim the scheduler refused (or could not be asked): the work sent is stopped. */
    withdraw(c: Claim) {
      held.delete(c.next.runId);
      logger.warn("a slot's next run was sent but did not get the slot; its work is withdrawn", {
        run_id: c.next.runId,
        slot: c.next.slot,
      });
      void deps
        .withdraw?.(c.next)
        .catch((error: unknown) =>
          logger.warn("withdrawing a next run's work failed", { run_id: c.next.runId, error }),
        );
    },
    /** `runId` will not release its slot from here (its job is retried, or it moved): its next run is not held. */
    forget(runId: string) {
      const next = nextAfter.get(runId);
      if (!next) return;
      nextAfter.delete(runId);
      held.delete(next.runId);
    },
    close() {
      clearInterval(beat);
      drop();
    },
  };
}
