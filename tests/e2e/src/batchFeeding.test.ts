import { freePort, seedCogModel, startFakeCog, waitFor, type FakeCog } from "@svc/testkit";
import { cogWorkerEnv, startService, type E2EService } from "./service.js";

// How the feeder admits a batch's items (issue #61, core's batchFeed), against the built API and
// worker with a feed interval long enough to tell its passes from the passes a run's end brings:
// a round of items at a time, the next one as soon as less than an interval's worth is in flight.
const INTERVAL_MS = 3_000;

/** A batch of `n` items on `model`, made with the SDK by a new account: its id and the account's, once completed. */
async function completedBatch(service: E2EService, model: string, n: number) {
  const { client, accountId } = await service.account(1_000);
  const batch = await client.batches.create({
    model,
    items: Array.from({ length: n }, (_, i) => ({ custom_id: `i${i}`, input: { prompt: `i${i}` } })),
  });
  await waitFor(async () => (await client.batches.get(batch.id)).status === "completed", {
    what: "the batch to complete",
    timeoutMs: 30_000,
  });
  return { batchId: batch.id, accountId };
}

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
    const { batchId } = await completedBatch(service, "feed/cog", 9);
    const runs = await service.database.db.run.findMany({
      where: { batchId },
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

// Batch items' starts and settlements that hold up nothing (GROUP_COMMIT_BATCH_WINDOW_MS), in the
// built worker as an operator runs it: four servers whose predictions end 10 ms apart, so that
// the items that take their places next start 10 ms apart, and wait for each other's company; and
// two servers of predictions far shorter than that wait, which must not idle through it.
describe("batch items' transitions", () => {
  let service: E2EService;
  let cogs: FakeCog[];
  let quick: FakeCog[];

  beforeAll(async () => {
    service = await startService({ BATCH_MAX_SHARE_PERCENT: "100" });
    await service.startApi();
    await service.startWorker({ ...cogWorkerEnv(await freePort()), GROUP_COMMIT_BATCH_WINDOW_MS: "100" });
    cogs = await Promise.all(
      [100, 110, 120, 130].map((delayMs) => startFakeCog({ behaviour: { delayMs, imageSide: 16 } })),
    );
    await seedCogModel(
      service.database.db,
      "group/cog",
      cogs.map((c) => c.url),
      { runner: { predictions: "sync" } },
    );
    quick = await Promise.all([0, 1].map(() => startFakeCog({ behaviour: { delayMs: 10, imageSide: 16 } })));
    await seedCogModel(
      service.database.db,
      "quick/cog",
      quick.map((c) => c.url),
      { runner: { predictions: "sync" } },
    );
  });
  afterAll(async () => {
    await Promise.all([...cogs, ...quick].map((c) => c.close()));
    await service?.stop();
  });

  it("when a batch's items take places freed 10 ms apart, then their starts wait for each other and share a statement, and every item is charged once", async () => {
    const { batchId, accountId } = await completedBatch(service, "group/cog", 8);
    const runs = await service.database.db.run.findMany({
      where: { batchId },
      select: { startedAt: true, status: true, tokensCharged: true },
    });
    expect(runs.map((r) => [r.status, r.tokensCharged])).toEqual(Array(8).fill(["COMPLETED", 3]));
    // One statement per wave (one transaction: one database time), not one per item.
    const starts = new Set(runs.map((r) => r.startedAt!.getTime()));
    expect(starts.size).toBe(2);
    const account = await service.database.db.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(account).toMatchObject({ balance: 1_000 - 8 * 3, reserved: 0 });
  });

  it("when a batch's predictions end long before their starts' window, then each server's next item goes as its prediction answers, not once the start commits", async () => {
    await completedBatch(service, "quick/cog", 16);
    // The idle time between one prediction's end and the next one's start on the same server.
    const gaps = quick.flatMap((cog) => {
      const ran = [...cog.predictions.values()].sort((a, b) => a.startedAt - b.startedAt);
      return ran.slice(1).map((p, i) => p.startedAt - ran[i]!.endedAt!);
    });
    expect(gaps).toHaveLength(14);
    gaps.sort((a, b) => a - b);
    // Waiting for the start's window (100 ms) would leave each server idle for most of it.
    expect(gaps[7]).toBeLessThan(40);
  });
});
