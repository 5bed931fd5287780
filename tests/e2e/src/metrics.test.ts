import { freePort, metricSample as sample, startHttpsReceiver, waitFor } from "@svc/testkit";
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
});
