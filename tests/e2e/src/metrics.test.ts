import { freePort, metricSample as sample, startHttpsReceiver, stopApps, waitFor } from "@svc/testkit";
import { startService } from "./service.js";

describe("worker metrics", () => {
  it("when runs finish and webhooks are delivered, then the worker's series move", async () => {
    const port = await freePort();
    const service = await startService();
    const receiver = await startHttpsReceiver();
    try {
      await service.startApi();
      await service.startWorker({ METRICS_PORT: String(port), METRICS_HOST: "127.0.0.1" });
      const { client } = await service.account(1000);
      const created = await client.runs.create("test/instant", {
        input: { prompt: "count me", num_images: 2 },
        webhook_url: receiver.url(),
      });
      await receiver.waitForRequests(1);
      const scrape = () => fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
      const text = await waitFor(async () => {
        const t = await scrape();
        return sample(t, "svc_webhook_attempts_total", { outcome: "succeeded" }) === 1 ? t : null;
      });
      expect(sample(text, "svc_runs_finished_total", { model: "test/instant", outcome: "completed" })).toBe(
        1,
      );
      expect(sample(text, "svc_tokens_charged_total", { model: "test/instant" })).toBe(10);
      expect(sample(text, "svc_run_queue_wait_seconds_count")).toBe(1);
      expect(sample(text, "svc_webhook_attempt_duration_seconds_count")).toBe(1);
      expect(text).toMatch(/svc_queue_jobs\{queue="runs",state="waiting"\} 0/);
      expect(text).toMatch(/svc_queue_jobs\{queue="deliveries",state="active"\} \d+/);
      expect(created.run_id).toMatch(/^run_/);
    } finally {
      await receiver.close();
      await service.stop();
    }
  });

  it("when a worker runs and then drains, then /healthz stays 200 and /readyz turns 503 (its Kubernetes probes)", async () => {
    const port = await freePort();
    const service = await startService();
    try {
      await service.startApi();
      const worker = await service.startWorker({
        METRICS_PORT: String(port),
        METRICS_HOST: "127.0.0.1",
        SHUTDOWN_GRACE_MS: "20000",
      });
      const probe = (path: string) => fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.status);
      expect([await probe("/healthz"), await probe("/readyz")]).toEqual([200, 200]);
      // A run that holds the drain open for its 3 s.
      const { client } = await service.account(100);
      const { run_id } = await client.runs.create("test/slow", { input: { prompt: "hold" } });
      await waitFor(async () => ((await client.runs.get(run_id)).status === "EXECUTING" ? true : null));
      worker.child.kill("SIGTERM");
      await waitFor(async () => ((await probe("/readyz")) === 503 ? true : null), { what: "/readyz 503" });
      expect(await probe("/healthz")).toBe(200);
      await stopApps(worker);
      expect((await client.runs.get(run_id)).status).toBe("COMPLETED");
    } finally {
      await service.stop();
    }
  });
});
