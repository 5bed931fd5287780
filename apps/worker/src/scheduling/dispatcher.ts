import { groupCommit } from "@svc/core";
import type { Logger } from "@svc/logger";
import { launchRuns, type Dispatched, type LeasedRunsQueue, type Scheduler } from "@svc/queue";

export interface WorkerDispatcher {
  /** A leased run this worker executes: its lease is renewed until it is released. */
  hold(runId: string): void;
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
  /** Sets a pool's slots (the monitor's view of its capacity) and fills any that are free. */
  setSlots(pool: string, slots: readonly string[], warmWeights?: number): Promise<void>;
  /** Gives back lapsed leases and fills the pools (and every pool with room). */
  tick(pools?: readonly string[]): Promise<void>;
  relocate: Scheduler["relocate"];
  close(): void;
}

/** The dispatched runs `wants` says yes to (false when it fails: the run goes the usual way). */
async function pick(dispatched: Dispatched[], wants: (d: Dispatched) => Promise<boolean>) {
  const picked = await Promise.all(dispatched.map((d) => wants(d).catch(() => false)));
  return dispatched.filter((_, i) => picked[i]);
}

/**
 * The worker's side of the scheduler: every slot that frees here (a run's end, a Cog `completed`
 * webhook, a server back, a lapsed lease) dispatches in the same script call, and the runs it
 * leased go to the workers at once (in a queue of their own, behind no unlimited model's runs), or
 * start here at once when their server answers on the request that sends the work (`here`).
 * Leases of the runs executing here are renewed every third of SCHEDULER_LEASE_MS; a crashed
 * worker's leases lapse, and a timer set to the next expiry gives their slots back on time.
 */
export function workerDispatcher(deps: {
  scheduler: Scheduler;
  leased: LeasedRunsQueue;
  logger: Logger;
  leaseMs: number;
  /**
   * Sends a leased run's work to its slot at once (true when sent); its execution then only
   * continues it (`here`: in this process; else in whichever worker takes its job).
   */
  begin?(dispatched: Dispatched, here: boolean): Promise<boolean>;
  /**
   * Runs this worker executes itself as soon as they are leased (core's executesWhereLeased), when
   * it still takes work: `wants` picks them, `launch` starts them (runs/localRuns.ts).
   */
  here?: {
    wants(dispatched: Dispatched): Promise<boolean>;
    /** `begun`: each run's begin, sent meanwhile (its execution continues it). */
    launch(dispatched: Dispatched[], begun: ReadonlyMap<string, Promise<boolean>>): void;
  };
  /**
   * A slot released here went to the next waiting run, whose work reached the slot's server
   * `seconds` after the release began: this control plane's part of a server's idle gap.
   */
  handedOver?(pool: string, seconds: number): void;
}): WorkerDispatcher {
  const { scheduler, logger } = deps;
  const held = new Set<string>();
  /** `released`: when the release that freed these slots began (none for a tick or new slots). */
  const launch = async (dispatched: Dispatched[], released?: number) => {
    if (!dispatched.length) return;
    const since = released ?? performance.now();
    const leased = performance.now();
    const here = deps.here ? await pick(dispatched, deps.here.wants) : [];
    const elsewhere = here.length ? dispatched.filter((d) => !here.includes(d)) : dispatched;
    const begun = new Set<string>();
    if (deps.begin)
      await Promise.all(
        elsewhere.map(async (d) => {
          if (!(await deps.begin!(d, false).catch(() => false))) return;
          begun.add(d.runId);
          if (released !== undefined) deps.handedOver?.(d.pool, (performance.now() - released) / 1000);
        }),
      );
    await Promise.all([launchRuns(deps.leased, elsewhere, begun), here.length && launchHere(here, released)]);
    const launched = performance.now();
    for (const d of dispatched)
      logger.debug("run dispatched", {
        run_id: d.runId,
        slot: d.slot,
        model_id: d.pool,
        at: performance.timeOrigin + launched,
        lease_ms: +(leased - since).toFixed(2),
        enqueue_ms: +(launched - leased).toFixed(2),
      });
  };
  /**
   * Runs executed here: their work leaves for the slot at once (begin), then their executions start
   * (their starts recorded meanwhile) and continue it.
   */
  const launchHere = async (here: Dispatched[], released?: number) => {
    const begun = new Map(
      here.map((d) => {
        const sent = deps.begin ? deps.begin(d, true).catch(() => false) : Promise.resolve(false);
        if (released !== undefined)
          void sent.then((yes) => yes && deps.handedOver?.(d.pool, (performance.now() - released) / 1000));
        return [d.runId, sent] as const;
      }),
    );
    // The requests leave before the executions start (their JavaScript would delay them).
    await Promise.all(begun.values());
    deps.here!.launch(here, begun);
  };
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
  // Slots that free while a release is on its way to Redis go back together in the next call: one
  // script (one purge, one fill) for however many predictions ended meanwhile.
  // The next call goes as soon as this one's script has answered; launching the runs it leased
  // (their work to the servers, their jobs) goes on meanwhile, and each caller waits for it.
  const releases = groupCommit<{ runId: string; at: number }, Promise<void>>({
    async apply(items) {
      const dispatched = await scheduler.release(items.map((i) => i.runId));
      const launched = launch(dispatched, Math.min(...items.map((i) => i.at)));
      return items.map(() => launched);
    },
    // A slot freed while nothing is on its way goes back at once: waiting for company would add
    // to the server's idle gap.
    windowMs: null,
    maxBatch: 500,
    maxInFlight: 1,
  });
  const renewal = setInterval(
    () => {
      if (held.size)
        scheduler.renew([...held]).catch((error: unknown) => logger.warn("lease renewal failed", { error }));
    },
    Math.max(250, Math.floor(deps.leaseMs / 3)),
  );
  const release = async (runId: string) => {
    held.delete(runId);
    await await releases.submit({ runId, at: performance.now() });
  };
  return {
    hold: (runId) => void held.add(runId),
    forget: (runId) => void held.delete(runId),
    release,
    launch: (dispatched) => launch(dispatched),
    async releaseHeld(runId) {
      if (held.has(runId)) await release(runId);
    },
    async setSlots(pool, slots, warmWeights) {
      await launch(await scheduler.setSlots(pool, slots, warmWeights));
    },
    tick,
    relocate: scheduler.relocate,
    close() {
      clearInterval(renewal);
      clearTimeout(expiryTimer);
    },
  };
}
