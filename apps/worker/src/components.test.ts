import { createLogger } from "@svc/logger";
import { PassThrough } from "node:stream";
import { ABANDON, Components, withinGrace } from "./components.js";

// The worker's shutdown order and grace period, as the component list applies them.
describe("worker components", () => {
  const logger = createLogger({ service: "worker", level: "error", stream: new PassThrough() });

  function list(stopped: string[], stops: Record<string, () => unknown> = {}) {
    const components = new Components(logger);
    for (const name of ["connections", "queues", "processors", "heartbeat"])
      components.add(name, () => {
        stopped.push(name);
        return stops[name]?.();
      });
    return components;
  }

  it("when stopped, then the last started stops first and what it rests on last", async () => {
    const stopped: string[] = [];
    expect(await list(stopped).stop()).toBe(true);
    expect(stopped).toEqual(["heartbeat", "processors", "queues", "connections"]);
  });

  it("when a stop runs past its grace period, then it abandons the components before it, which stay as they are", async () => {
    const stopped: string[] = [];
    const never = new Promise(() => {});
    const components = list(stopped, { processors: () => withinGrace(never, 20) });
    expect(await components.stop()).toBe(false);
    expect(stopped).toEqual(["heartbeat", "processors"]);
  });

  it("when the work ends within the grace period, then the stop goes on to the end", async () => {
    const stopped: string[] = [];
    const components = list(stopped, { processors: () => withinGrace(Promise.resolve(), 60_000) });
    expect(await components.stop()).toBe(true);
    expect(stopped).toEqual(["heartbeat", "processors", "queues", "connections"]);
  });

  it("when a stop fails, then the next ones still stop", async () => {
    const stopped: string[] = [];
    const components = list(stopped, {
      queues: () => {
        throw new Error("queue gone");
      },
    });
    expect(await components.stop()).toBe(true);
    expect(stopped).toEqual(["heartbeat", "processors", "queues", "connections"]);
  });

  it("when a component fails to start, then those started before it stop, and stop() twice stops once", async () => {
    const stopped: string[] = [];
    const components = list(stopped);
    await expect(
      components.start("metrics", () => {
        throw new Error("port taken");
      }),
    ).rejects.toThrow("port taken");
    expect(stopped).toEqual(["heartbeat", "processors", "queues", "connections"]);
    await components.stop();
    expect(stopped).toHaveLength(4);
  });

  it("when ABANDON is answered by a stop, then stop() answers false", async () => {
    const stopped: string[] = [];
    expect(await list(stopped, { heartbeat: () => ABANDON }).stop()).toBe(false);
    expect(stopped).toEqual(["heartbeat"]);
  });
});
