import {
  createAccountWithKeys,
  createTestDatabase,
  freePort,
  seedTestModels,
  spawnApp,
  testQueuePrefix,
  serviceEnv,
  deleteRedisPrefix,
} from "@svc/testkit";

describe("API shutdown", () => {
  it("when SIGTERM arrives under load, then no accepted request is cut off and the process exits within the grace period", async () => {
    const database = await createTestDatabase();
    const prefix = testQueuePrefix();
    try {
      await seedTestModels(database.db);
      const { liveKey } = await createAccountWithKeys(database.db, 100_000);
      const port = await freePort();
      const api = spawnApp("api", {
        ...serviceEnv(database.url, prefix),
        HOST: "127.0.0.1",
        PORT: String(port),
        SHUTDOWN_GRACE_MS: "5000",
        SHUTDOWN_DRAIN_MS: "300",
        LOG_LEVEL: "http",
        RATE_LIMIT_PER_MINUTE: "1000000",
        RATE_LIMIT_RUNS_PER_MINUTE: "1000000",
      });
      await api.waitForLine((l) => l.message === "api listening");
      const base = `http://127.0.0.1:${port}/api/v1`;
      const headers = { Authorization: `Bearer ${liveKey}`, "Content-Type": "application/json" };
      const outcomes: { id: string; kind: "read" | "create"; outcome: string }[] = [];
      let answered = 0;
      let signaled = 0;
      const one = async (i: number) => {
        const id = `load-${i}`;
        const kind = i % 2 ? "read" : "create";
        const h = { ...headers, "X-Request-Id": id };
        let outcome: string;
        try {
          const res =
            kind === "read"
              ? await fetch(`${base}/models`, { headers: h })
              : await fetch(`${base}/models/test/instant/run`, {
                  method: "POST",
                  headers: h,
                  body: JSON.stringify({ input: { prompt: id } }),
                });
          const body = (await res.json()) as { data?: unknown };
          outcome = (res.status === 200 || res.status === 201) && body.data ? "ok" : `status ${res.status}`;
        } catch (error) {
          outcome = `broken ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`;
        }
        outcomes.push({ id, kind, outcome });
        if (++answered === 40) {
          signaled = Date.now();
          api.child.kill("SIGTERM");
        }
      };
      // 8 clients, each sending requests back to back: there is always work in flight at SIGTERM.
      await Promise.all(
        Array.from({ length: 8 }, async (_, c) => {
          for (let i = c; i < 400; i += 8) await one(i);
        }),
      );
      const code = await api.exited;
      const tookMs = Date.now() - signaled;
      expect(code).toBe(0);
      expect(tookMs).toBeLessThan(5000 + 1500);
      expect(api.lines.some((l) => l.message === "api stopped")).toBe(true);

      // What the server accepted, it finished: nothing aborted, every request it logged was answered
      // in full, and every failure on the client side is a request the server never started.
      const served = new Set(api.lines.filter((l) => l.message === "request").map((l) => l.request_id));
      expect(api.lines.filter((l) => String(l.message).startsWith("request aborted"))).toEqual([]);
      expect(outcomes.filter((o) => served.has(o.id) && o.outcome !== "ok")).toEqual([]);
      expect(outcomes.filter((o) => !served.has(o.id) && o.outcome === "ok")).toEqual([]);
      expect(outcomes.filter((o) => o.outcome === "ok").length).toBeGreaterThanOrEqual(40);
      expect(outcomes.filter((o) => o.outcome !== "ok").length).toBeGreaterThan(0);
      // Exactly the acknowledged run creations exist.
      expect(await database.db.run.count()).toBe(
        outcomes.filter((o) => o.kind === "create" && o.outcome === "ok").length,
      );
    } finally {
      await deleteRedisPrefix(prefix);
      await database.drop();
    }
  });
});
