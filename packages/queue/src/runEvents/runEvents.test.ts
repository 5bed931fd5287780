import { deleteRedisPrefix, testQueuePrefix, TEST_REDIS_URL, waitFor } from "@svc/testkit";
import { Redis } from "ioredis";
import { keys } from "./keys.js";
import { createRunEventHub, runEventRecorder, type HubMessage } from "./index.js";

// The hub against a real Redis: it holds the events channel only while someone listens, and a
// listener never misses an event without being told to re-read.
describe("run event hub (Redis)", () => {
  let redis: Redis;
  const prefix = testQueuePrefix();
  const record = () => runEventRecorder(redis, prefix, { activeTtlMs: 60_000, endedTtlMs: 60_000 });
  const subscribers = async () =>
    Number(((await redis.pubsub("NUMSUB", keys(prefix).channel)) as [string, number])[1]);
  const status = (runId: string, status: "QUEUED" | "EXECUTING" | "COMPLETED") => ({
    runId,
    modelId: "acme/echo",
    event: { type: "status" as const, status, at: new Date().toISOString() },
  });

  // A hub whose subscription errors fail the test.
  const openHub = (lingerMs?: number) =>
    createRunEventHub(
      redis,
      prefix,
      (error) => {
        throw error;
      },
      lingerMs === undefined ? {} : { lingerMs },
    );

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await deleteRedisPrefix(prefix);
    redis.disconnect();
  });

  it("when nobody listens, then the process is not subscribed, and events are only stored", async () => {
    const hub = openHub();
    try {
      await record()([status("run_quiet", "QUEUED")]);
      expect(await subscribers()).toBe(0);
      expect((await hub.history("run_quiet")).map((e) => e.event.type)).toEqual(["status"]);
    } finally {
      await hub.close();
    }
  });

  it("when a listener joins, then it is told to re-read once the subscription is in place, and gets later events live", async () => {
    const hub = openHub();
    try {
      const heard: HubMessage[] = [];
      const stop = hub.listen("run_live", (m) => heard.push(m));
      await waitFor(async () => heard.includes("resync"), { what: "the resync" });
      expect(await subscribers()).toBe(1);
      await record()([status("run_live", "EXECUTING"), status("run_other", "EXECUTING")]);
      await waitFor(async () => heard.length === 2, { what: "the live event" });
      expect(heard[1]).toMatchObject({ event: { type: "status", status: "EXECUTING" } });
      stop();
      expect(hub.listeners()).toBe(0);
    } finally {
      await hub.close();
    }
  });

  it("when the last listener leaves, then the subscription lingers, serves a listener that comes back, and is dropped after the linger", async () => {
    const hub = openHub(300);
    try {
      const first: HubMessage[] = [];
      const stopFirst = hub.listen("run_a", (m) => first.push(m));
      await waitFor(async () => first.includes("resync"), { what: "the first resync" });
      stopFirst();
      // Back within the linger: the subscription was never dropped, so there is nothing to re-read.
      const second: HubMessage[] = [];
      const stopSecond = hub.listen("run_a", (m) => second.push(m));
      await record()([status("run_a", "COMPLETED")]);
      await waitFor(async () => second.length > 0, { what: "the live event" });
      expect(second).toEqual([
        expect.objectContaining({ event: expect.objectContaining({ status: "COMPLETED" }) }),
      ]);
      stopSecond();
      expect(await subscribers()).toBe(1);
      await waitFor(async () => (await subscribers()) === 0, { what: "the unsubscribe" });
      // Joining again subscribes again.
      const third: HubMessage[] = [];
      hub.listen("run_a", (m) => third.push(m));
      await waitFor(async () => third.includes("resync"), { what: "the third resync" });
      expect(await subscribers()).toBe(1);
    } finally {
      await hub.close();
    }
    await waitFor(async () => (await subscribers()) === 0, { what: "the closed hub's unsubscribe" });
  });

  it("when listeners come and go faster than Redis answers, then the one that stays is subscribed and told to re-read", async () => {
    const hub = openHub(0);
    try {
      let last: HubMessage[] = [];
      for (let i = 0; i < 20; i++) {
        last = [];
        const mine = last;
        const stop = hub.listen(`run_${i}`, (m) => mine.push(m));
        if (i === 19) break;
        stop();
        // Some turns let the linger's timer fire (an unsubscribe under way) before the next joins.
        if (i % 3 === 1) await new Promise((r) => setTimeout(r, 1));
      }
      await waitFor(async () => last.includes("resync"), { what: "the last listener's resync" });
      expect(await subscribers()).toBe(1);
      await record()([status("run_19", "EXECUTING")]);
      await waitFor(async () => last.some((m) => m !== "resync"), { what: "the live event" });
    } finally {
      await hub.close();
    }
  });
});
