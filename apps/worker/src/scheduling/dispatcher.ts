import { groupCommit } from "@svc/core";
import type { Dispatched, Scheduler } from "@svc/queue";
import { runLauncher, type LaunchDeps } from "./launch.js";
import { nextRunsHeldHere, type Claim } from "./nextRuns.js";

export interface WorkerDispatcher {
  /**
   * A leased run this worker executes: its lease is renewed until it is released (not when its
   * slot went back already, before its execution here began: a claimed next run's early answer).
   */
  hold(runId: string): void;
  /** Whether this worker still holds the run's slot (it has not been given back). */
  holds(runId: string): boolean;
  /** Gives the run's slot back and launches the runs the scheduler put into free slots. */
  release(runId: string): Promise<void>;
  /**
   * Gives back the slot of a run this worker holds, unless a release from here gave it back
   * already (a Cog runner frees its server before copying the outputs; a Cog webhook received
   * here frees it first): each is a Redis call, and the scheduler needs one.
   */
  releaseHeld(runId: string): Promise<void>;
  /** Forgets a held run without giving its slot back (its job will be retried: the lease stays). */
  forget(runId: string): void;
  /**
   * Launches runs leased a slot elsewhere in this process (a batch item admitted here): executed
   * here when their kind is (executesWhereLeased), else by their jobs.
   */
  launch(dispatched: Dispatched[]): Promise<void>;
  /**
   * Sets a pool's slots (the monitor's view of its capacity) and fills any that are free;
   * `nextHeldMs`: the longest mean hold under which its slots keep a next run (0: never).
   */
  setSlots(pool: string, slots: readonly string[], warmWeights?: number, nextHeldMs?: number): Promise<void>;
  /** Gives back lapsed leases and fills the pools (and every pool with room). */
  tick(pools?: readonly string[]): Promise<void>;
  /**
   * Moves a run executing here to a free slot on a server not in `avoid` (null when none is free);
   * the run that takes its old slot (that slot's next run) starts from here.
   */
  relocate(runId: string, avoid: readonly string[]): Promise<string | null>;
  /** An interactive run waits in the pool (INTERACTIVE_WAITING_CHANNEL): batch next runs are not sent first. */
  interactiveWaits(pool: string): void;
  close(): void;
}

/**
 * Slots that free while a release is on its way to Redis go back together in the next call: one
 * script (one purge, one fill) for however many predictions ended meanwhile. The next call goes as
 * soon as this one's script has answered; launching the runs it leased (their work to the servers,
 * their jobs) goes on meanwhile, and each caller waits for it. A slot freed while nothing is on
 * its way goes back at once (waiting for company would add to the server's idle gap), unless it
 * is a batch item's whose next batch item is on its way to the server already (claimed): that
 * release holds up nobody and waits up to `patientWindowMs` for company, in the same queue, so
 * that a release never overtakes the one that claimed its run.
 */
function releasing(
  deps: {
    scheduler: Scheduler;
    next: ReturnType<typeof nextRunsHeldHere>;
    launch: ReturnType<typeof runLauncher>;
    accepting(): boolean;
  },
  patientWindowMs: number | null,
) {
  const { scheduler, next, launch } = deps;
  return groupCommit<{ runId: string; at: number; claim?: Claim }, Promise<void>>({
    async apply(items) {
      const claims = items.flatMap((i) => (i.claim ? [i.claim] : []));
      const answer = await scheduler
        .handOver(
          items.map((i) => i.runId),
          { keepNext: deps.accepting(), claimed: claims.map((c) => c.next.runId) },
        )
        .catch((error: unknown) => {
          // Their slots' runs hold them still: the work sent is withdrawn (their predecessors'
          // leases lapse, and the next runs are sent again then).
          for (const c of claims) next.withdraw(c);
          throw error;
        });
      next.heard(answer.interactiveWaiting);
      const rejected = new Set(answer.rejected);
      for (const c of claims) if (rejected.has(c.next.runId)) next.withdraw(c);
      const launched = launch(
        answer.dispatched,
        Math.min(...items.map((i) => i.at)),
        claims.filter((c) => !rejected.has(c.next.runId)),
        answer.next,
      );
      return items.map(() => launched);
    },
    windowMs: null,
    windowOf: (item) => (item.claim?.next.batch ? patientWindowMs : null),
    maxBatch: 500,
    maxInFlight: 1,
  });
}

/**
 * The worker's side of the scheduler: every slot that frees here (a run's end, a Cog `completed`
 * webhook, a server back, a lapsed lease) dispatches in the same script call, and the runs it
 * leased go to the workers at once (in a queue of their own, behind no unlimited model's runs), or
 * start here at once when their server answers on the request that sends the work (`here`); a
 * slot freed here whose next run this worker holds has that run sent before the release leaves
 * (nextRuns.ts). Leases of the runs executing here (and of the next runs held) are renewed every
 * third of SCHEDULER_LEASE_MS; a crashed worker's leases lapse, and a timer set to the next expiry
 * gives their slots back on time.
 */
export function workerDispatcher(
  deps: LaunchDeps & {
    scheduler: Scheduler;
    leaseMs: number;
    /** Stops the work sent for a claimed next run that did not get its slot (Runner.abandon). */
    withdraw?(dispatched: Dispatched): Promise<void>;
    /**
     * An event loop blocked this long (ms) drops the next runs held here: a run taken over by
     * another worker meanwhile (RUN_LOCK_MS) must not have its slot's next run sent from here too.
     */
    stallMs?: number;
    /** How long a release that holds up nobody waits for company (GROUP_COMMIT_BATCH_WINDOW_MS). */
    patientWindowMs?: number;
  },
): WorkerDispatcher {
  const { scheduler, logger } = deps;
  const held = new Set<string>();
  // Runs whose slot went back from here, by when, until the next hold or release call about them:
  // a claimed next run whose prediction answered before its execution here began must not have
  // its slot held again by that execution. (One never executed here is forgotten after a lease.)
  const gaveBack = new Map<string, number>();
  const next = nextRunsHeldHere({
    held,
    stallMs: deps.stallMs ?? Math.max(250, Math.floor(deps.leaseMs / 4)),
    logger,
    accepting: () => deps.here?.accepting() ?? false,
    begin: deps.begin,
    withdraw: deps.withdraw,
    handedOver: deps.handedOver,
  });
  const launch = runLauncher({ ...deps, next });
  let expiryTimer: NodeJS.Timeout | undefined;
  let expiryAt = Infinity;
  const tick = async (pools: readonly string[] = []) => {
    const { dispatched, nextExpiry } = await scheduler.tick(pools);
    await launch(dispatched);
    if (nextExpiry === null || nextExpiry >= expiryAt) return;
    clearTimeout(expiryTimer);
    expiryAt = nextExpiry;
    expiryTimer = setTimeout(
      () => {
        expiryAt = Infinity;
        tick().catch((error: unknown) => logger.warn("scheduler tick failed", { error }));
      },
      Math.max(0, nextExpiry - Date.now()) + 5,
    );
  };
  const releaseDeps = { scheduler, next, launch, accepting: () => deps.here?.accepting() ?? false };
  const releases = releasing(releaseDeps, deps.patientWindowMs ?? null);
  const renewal = setInterval(
    () => {
      if (held.size)
        scheduler.renew([...held]).catch((error: unknown) => logger.warn("lease renewal failed", { error }));
      const lapsed = Date.now() - deps.leaseMs;
      for (const [runId, at] of gaveBack) if (at < lapsed) gaveBack.delete(runId);
    },
    Math.max(250, Math.floor(deps.leaseMs / 3)),
  );
  const release = async (runId: string) => {
    held.delete(runId);
    gaveBack.set(runId, Date.now());
    await await releases.submit({ runId, at: performance.now(), claim: next.claim(runId) });
  };
  return {
    hold(runId) {
      if (!gaveBack.delete(runId)) held.add(runId);
    },
    holds: (runId) => held.has(runId),
    forget(runId) {
      held.delete(runId);
      gaveBack.delete(runId);
      next.forget(runId);
    },
    release,
    launch: (dispatched) => launch(dispatched),
    async releaseHeld(runId) {
      if (held.has(runId)) await release(runId);
      else gaveBack.delete(runId);
    },
    async setSlots(pool, slots, warmWeights, nextHeldMs) {
      await launch(await scheduler.setSlots(pool, slots, warmWeights, nextHeldMs));
    },
    tick,
    async relocate(runId, avoid) {
      const moved = await scheduler.relocate(runId, avoid);
      if (!moved) return null;
      // The old slot's next run took it: it starts from here, as any run leased.
      next.forget(runId);
      await launch(moved.dispatched);
      return moved.slot;
    },
    interactiveWaits: (pool) => next.heard(new Map([[pool, true]])),
    close() {
      clearInterval(renewal);
      clearTimeout(expiryTimer);
      next.close();
    },
  };
}
