import type { Logger } from "@svc/logger";
import { launchRuns, type ByLane, type Dispatched, type LeasedRunsQueue } from "@svc/queue";
import type { Claim, nextRunsHeldHere } from "./nextRuns.js";

/** What launching leased runs needs: where they go (here or by their jobs) and how their work is sent. */
export interface LaunchDeps {
  /** Each lane's queue of leased runs' jobs. */
  leased: ByLane<LeasedRunsQueue>;
  logger: Logger;
  /**
   * Sends a leased run's work to its slot at once (true when sent); its execution then only
   * continues it (`here`: in this process; else in whichever worker takes its job).
   */
  begin?(dispatched: Dispatched, here: boolean): Promise<boolean>;
  /**
   * Runs this worker executes itself as soon as they are leased (core's executesWhereLeased), when
   * it still takes work and executes their lane (WORKER_LANES): `wants` picks them, `launch`
   * starts them (runs/localRuns.ts).
   */
  here?: {
    wants(dispatched: Dispatched): Promise<boolean>;
    /** `begun`: each run's begin, sent meanwhile (its execution continues it). */
    launch(dispatched: Dispatched[], begun: ReadonlyMap<string, Promise<boolean>>): void;
    /** Whether this worker still takes work (then the slots it is given may keep a next run). */
    accepting(): boolean;
  };
  /**
   * A slot released here went to the next waiting run, whose work reached the slot's server
   * `seconds` after the release began: this control plane's part of a server's idle gap.
   */
  handedOver?(pool: string, seconds: number): void;
}

/** The dispatched runs `wants` says yes to (false when it fails: the run goes the usual way). */
async function pick(dispatched: Dispatched[], wants: (d: Dispatched) => Promise<boolean>) {
  const picked = await Promise.all(dispatched.map((d) => wants(d).catch(() => false)));
  return dispatched.filter((_, i) => picked[i]);
}

/**
 * Where the runs a scheduler call leased go: their work to their slots at once (begin), then
 * those executed here start here and the others get their jobs. The slots' next runs the call
 * answered are kept after the runs on their slots that execute here (`next`).
 */
export function runLauncher(deps: LaunchDeps & { next: ReturnType<typeof nextRunsHeldHere> }) {
  const { logger, next } = deps;
  /**
   * Runs executed here: their work leaves for the slot at once (begin), then their executions start
   * (their starts recorded meanwhile) and continue it.
   */
  const launchHere = async (here: Dispatched[], released: number | undefined, claimed: Claim[]) => {
    const begun = new Map(
      here.map((d) => {
        const sent = deps.begin ? deps.begin(d, true).catch(() => false) : Promise.resolve(false);
        if (released !== undefined)
          void sent.then((yes) => yes && deps.handedOver?.(d.pool, (performance.now() - released) / 1000));
        return [d.runId, sent] as const;
      }),
    );
    for (const c of claimed) begun.set(c.next.runId, c.begun);
    // The requests leave before the executions start (their JavaScript would delay them).
    await Promise.all(begun.values());
    deps.here!.launch([...here, ...claimed.map((c) => c.next)], begun);
  };
  /**
   * `released`: when the release that freed these slots began (none for a tick or new slots);
   * `claimed`: next runs sent to their slots already, which start here; `nextRuns`: slots' next runs.
   */
  return async (
    dispatched: Dispatched[],
    released?: number,
    claimed: Claim[] = [],
    nextRuns: Dispatched[] = [],
  ) => {
    if (!dispatched.length && !claimed.length) return;
    const since = released ?? performance.now();
    const leased = performance.now();
    const here = deps.here && dispatched.length ? await pick(dispatched, deps.here.wants) : [];
    const elsewhere = here.length ? dispatched.filter((d) => !here.includes(d)) : dispatched;
    if (nextRuns.length)
      // A slot's run is the one this call leased it, over a claimed run released in the same
      // call (its prediction answered before the release that claimed it went).
      next.keep(nextRuns, new Map([...claimed.map((c) => c.next), ...here].map((d) => [d.slot, d.runId])));
    const begun = new Set<string>();
    if (deps.begin)
      await Promise.all(
        elsewhere.map(async (d) => {
          if (!(await deps.begin!(d, false).catch(() => false))) return;
          begun.add(d.runId);
          if (released !== undefined) deps.handedOver?.(d.pool, (performance.now() - released) / 1000);
        }),
      );
    await Promise.all([
      launchRuns(deps.leased, elsewhere, begun),
      (here.length || claimed.length) && launchHere(here, released, claimed),
    ]);
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
}
