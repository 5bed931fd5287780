import { freePort, seedCogModel, startFakeCog, waitFor, type FakeCog } from "@svc/testkit";
import { startService, type E2EService } from "./service.js";

// How the feeder admits a batch's items (issue #61, core's batchFeed), against the built API and
// worker with a feed interval long enough to tell its passes from the passes a run's end brings:
// a round of items at a time, the next one as soon as less than an interval's worth is in flight.
const INTERVAL_MS = 3_000;

describe("batch feeding", () => {
  let service: E2EService;
  let cog: FakeCog;

  beforeAll(async () => {
    service = await startService({
      BATCH_FEED_INTERVAL_MS: String(INTERVAL_MS),
      BATCH_MAX_SHARE_PERCENT: "50",
    });
    await service.startApi();
    const callbackPort = await freePort();
    await service.startWorker({
      COG_CALLBACK_URL: `http://127.0.0.1:${callbackPort}`,
      COG_CALLBACK_PORT: String(callbackPort),
      COG_CALLBACK_HOST: "127.0.0.1",
    });
    cog = await startFakeCog({ concurrency: 2, behaviour: { delayMs: 50, imageSide: 16 } });
    // Two places; batches may hold one of them.
    await seedCogModel(service.database.db, "feed/cog", [cog.url], { runner: { concurrency: 2 } });
  });
  afterAll(async () => {
    await cog?.close();
    await service?.stop();
  });

  it("when a batch runs, then its items are admitted a round at a time, the next round as soon as less than an interval's worth is left, not an interval later", async () => {
    const { client } = await service.account(1_000);
    const batch = await client.batches.create({
      model: "feed/cog",
      items: Array.from({ length: 9 }, (_, i) => ({ custom_id: `f${i}`, input: { prompt: `f${i}` } })),
    });
    await waitFor(async () => (await client.batches.get(batch.id)).status === "completed", {
      what: "the batch to complete",
      timeoutMs: 30_000,
    });
    const runs = await service.database.db.run.findMany({
      where: { batchId: batch.id },
      select: { createdAt: true, completedAt: true, status: true },
      orderBy: { createdAt: "asc" },
    });
    expect(runs.map((r) => r.status)).toEqual(Array(9).fill("COMPLETED"));
    // The first pass, knowing nothing yet of how long runs hold a place: the share's one place
    // busy and one item for it per interval, two intervals' worth (3). The worker's next pass
    // comes when fewer than an interval's worth (2) is left, once two of them ended.
    const ends = runs.map((r) => r.completedAt!.getTime()).sort((a, b) => a - b);
    expect(runs.filter((r) => r.createdAt.getTime() < ends[1]!)).toHaveLength(3);
    // That pass came from the runs' ends, well within the interval, and admitted the rest.
    const created = runs.map((r) => r.createdAt.getTime());
    expect(created.at(-1)! - created[0]!).toBeLessThan(INTERVAL_MS / 2);
  });
});
