import { poolOf, poolSlots, runnerSchema, traitsOf, type PoolSpec, type RunnerSettings } from "@svc/core";
import { serverUp } from "@svc/runners";
import { modelRunners, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import { liveWorkers, type Scheduler } from "@svc/queue";
import type { RedisClient } from "@svc/queue";
import type { WorkerDispatcher } from "./dispatcher.js";

export interface PoolMonitor {
  /** One pass now (the timer's work), for a caller that wants the pools current. */
  pass(): Promise<void>;
  stop(): void;
}

/**
 * Keeps every pool's slots true: the catalogue's servers (re-read every catalogueTtlMs, so servers
 * added or removed need no restart) that pass their kind's health check, times their concurrency; for
 * built-in generators, the live workers' render threads. One process per pool does each check
 * (a duty lock as long as the pool's health interval), so N workers cost one health check per
 * server per interval, not N. A pass also gives back lapsed leases; a pool whose slots grew is
 * filled in the same script call.
 */
export function startPoolMonitor(deps: {
  db: Db;
  redis: RedisClient;
  prefix: string;
  scheduler: Scheduler;
  dispatcher: WorkerDispatcher;
  logger: Logger;
  everyMs: number;
  catalogueTtlMs: number;
  /** Opens model servers' sealed API keys, for health checks that need them. */
  secretsKey?: Buffer;
  /** SCHEDULER_NEXT_RUN_MAX_HOLD_MS: for servers whose runs execute where leased. */
  nextRunMaxHoldMs?: number;
}): PoolMonitor {
  const { scheduler, logger } = deps;
  let pools: { id: string; spec: NonNullable<PoolSpec>; settings: RunnerSettings }[] = [];
  let loadedAt = -Infinity;
  let known = new Set<string>();
  const lastUp = new Map<string, boolean>();

  async function catalogue() {
    // Re-read when the TTL has passed, or at once when runs wait for a model not seen yet (a model
    // just added gets its capacity within a pass, not a TTL).
    const fresh = Date.now() - loadedAt < deps.catalogueTtlMs;
    if (fresh && (await scheduler.pools()).every((id) => known.has(id))) return pools;
    const rows = await modelRunners(deps.db);
    pools = rows.flatMap(({ id, runner }) => {
      const parsed = runnerSchema.safeParse(runner);
      const spec = parsed.success ? poolOf(parsed.data) : null;
      return spec ? [{ id, spec, settings: parsed.data! }] : [];
    });
    loadedAt = Date.now();
    known = new Set(rows.map((r) => r.id));
    return pools;
  }

  async function refresh(
    { id, spec, settings }: { id: string; spec: NonNullable<PoolSpec>; settings: RunnerSettings },
    threads: number,
  ) {
    const interval = spec.kind === "servers" ? spec.healthIntervalMs : deps.everyMs * 2;
    if (!(await scheduler.claimDuty(id, interval))) return;
    if (spec.kind === "workers") return deps.dispatcher.setSlots(id, poolSlots(spec, [], threads));
    const timeoutMs = Math.max(100, Math.min(interval, 5_000));
    const health = await Promise.all(
      spec.servers.map((server) => serverUp(settings, server, timeoutMs, deps.secretsKey)),
    );
    const up = health.map((h) => h.up);
    await Promise.all(
      spec.servers.map((server, i) => scheduler.setHealth(id, server, health[i]!.up, health[i]!.state)),
    );
    spec.servers.forEach((server, i) => {
      const key = `${id} ${server}`;
      if (lastUp.get(key) !== up[i])
        logger.info(up[i] ? "model server up" : "model server down", {
          model_id: id,
          server,
          state: health[i]!.state,
        });
      lastUp.set(key, up[i]!);
    });
    await deps.dispatcher.setSlots(
      id,
      poolSlots(
        spec,
        spec.servers.filter((_, i) => up[i]),
        0,
      ),
      spec.warmWeights,
      // A slot's next run is sent by the worker holding the slot's current run: only where that
      // worker executes it (the answer comes back on its request).
      traitsOf(settings).executesWhereLeased ? (deps.nextRunMaxHoldMs ?? 0) : 0,
    );
  }

  let running: Promise<void> | undefined;
  const pass = () =>
    (running ??= (async () => {
      try {
        const [known, live] = await Promise.all([catalogue(), liveWorkers(deps.redis, deps.prefix)]);
        const results = await Promise.allSettled(known.map((p) => refresh(p, live.threads)));
        for (const r of results)
          if (r.status === "rejected") logger.warn("pool refresh failed", { error: r.reason });
        await deps.dispatcher.tick();
      } catch (error) {
        logger.warn("pool monitor pass failed", { error });
      } finally {
        running = undefined;
      }
    })());
  const timer = setInterval(() => void pass(), deps.everyMs);
  void pass();
  return { pass, stop: () => clearInterval(timer) };
}
