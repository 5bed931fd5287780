import { Router } from "express";
import { ApiError } from "@svc/core";
import { sqlPool } from "@svc/db";
import { pingRedis } from "@svc/queue";
import type { AppDeps } from "../deps.js";

async function pingPostgres(deps: AppDeps): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      sqlPool(deps.db).query("SELECT 1"),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), deps.config.READY_TIMEOUT_MS);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** /healthz: the process is alive. /readyz: it can serve, i.e. Postgres and Redis answer. */
export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ data: { status: "ok" } });
  });
  router.get("/readyz", async (_req, res) => {
    if (deps.lifecycle.draining) throw new ApiError("SERVICE_UNAVAILABLE", "Shutting down.");
    const [postgres, redis] = await Promise.all([
      pingPostgres(deps),
      pingRedis(deps.redis, deps.config.READY_TIMEOUT_MS),
    ]);
    if (!postgres || !redis) {
      const down = Object.entries({ postgres, redis }).filter(([, ok]) => !ok);
      throw new ApiError(
        "SERVICE_UNAVAILABLE",
        `Not ready: ${down.map(([name]) => name).join(" and ")} did not answer.`,
        down.map(([name]) => ({
          path: name,
          message: `no answer within ${deps.config.READY_TIMEOUT_MS} ms`,
        })),
      );
    }
    res.json({ data: { status: "ready", checks: { postgres: "ok", redis: "ok" } } });
  });
  return router;
}
