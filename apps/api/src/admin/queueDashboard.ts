import type { RequestHandler, Router } from "express";
import { constantTimeEqual } from "@svc/core";
import { createDeliveriesQueue, createRedis, createRunsQueue } from "@svc/queue";

export const DASHBOARD_PATH = "/admin/queues";

/** HTTP Basic with user "admin" and the configured password, compared in constant time. */
function basicAuth(password: string): RequestHandler {
  const expected = `Basic ${Buffer.from(`admin:${password}`).toString("base64")}`;
  return (req, res, next) => {
    if (constantTimeEqual(req.get("authorization") ?? "", expected)) return next();
    res
      .set("WWW-Authenticate", 'Basic realm="queues", charset="UTF-8"')
      .status(401)
      .json({
        error: {
          code: "UNAUTHORIZED",
          message: "Operator credentials required.",
          request_id: res.locals.requestId,
        },
      });
  };
}

/**
 * The operators' view of the queues (bull-board): jobs by state, retry, clean. Its own Redis
 * connection, one that waits for Redis, so the dashboard never holds a failed queue handle.
 */
export interface QueueDashboard {
  /** Mount at DASHBOARD_PATH: credentials first, then bull-board. */
  handlers: RequestHandler[];
  close(): Promise<void>;
}

/** bull-board is loaded only here, so an API without a dashboard does not carry it in memory. */
export async function queueDashboard(
  redisUrl: string,
  prefix: string,
  password: string,
): Promise<QueueDashboard> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import("@bull-board/api"),
    import("@bull-board/api/bullMQAdapter"),
    import("@bull-board/express"),
  ]);
  const connection = createRedis(redisUrl, "worker");
  const queues = [createRunsQueue(connection, prefix), createDeliveriesQueue(connection, prefix)];
  const serverAdapter = new ExpressAdapter().setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: false })),
    serverAdapter,
  });
  return {
    handlers: [basicAuth(password), serverAdapter.getRouter() as Router],
    async close() {
      await Promise.allSettled(queues.map((q) => q.close()));
      connection.disconnect();
    },
  };
}
