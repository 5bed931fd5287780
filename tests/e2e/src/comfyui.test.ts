import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyRun } from "@svc/sdk";
import {
  COMFY_TXT2IMG,
  freePort,
  seedComfyModel,
  startFakeComfyUI,
  testPng,
  waitFor,
  type FakeComfyUI,
} from "@svc/testkit";
import { adminCli, startService, type E2EService } from "./service.js";

// ComfyUI workflows behind the scheduler, through the built API and worker: a protocol-faithful
// fake (one prompt at a time from its own FIFO queue, /ws messages, /history, /interrupt).
describe("ComfyUI workflows", () => {
  let service: E2EService;
  const fakes: FakeComfyUI[] = [];
  let client: Awaited<ReturnType<E2EService["account"]>>["client"];
  let worker: Awaited<ReturnType<E2EService["startWorker"]>>;
  const comfy = async (options: Parameters<typeof startFakeComfyUI>[0] = {}) => {
    const fake = await startFakeComfyUI(options);
    fakes.push(fake);
    return fake;
  };

  beforeAll(async () => {
    // A short run lock and frequent sweeps: a killed worker's runs are taken over within seconds
    // (from their backstop jobs, or by the sweeper before those are written), while their prompts
    // still run (the same on every worker, as the setting asks).
    service = await startService({ RUN_LOCK_MS: "4000", SWEEP_INTERVAL_MS: "300" });
    await service.startApi();
    worker = await service.startWorker();
    client = (await service.account(100_000)).client;
  });
  afterAll(async () => {
    await Promise.all(fakes.map((f) => f.close()));
    await service?.stop();
  });

  const ended = (id: string, c = client, timeoutMs = 20_000) =>
    waitFor(
      async () => {
        const run: AnyRun = await c.runs.get(id);
        return ["COMPLETED", "FAILED", "CANCELED"].includes(run.status) ? run : null;
      },
      { what: `run ${id} to end`, timeoutMs },
    );
  const imagesOf = (run: AnyRun) => (run as unknown as { output: { images: string[] } }).output.images;
  const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

  it("when a workflow model runs, then its inputs reach the bound nodes, its steps are progress, and its images are the output", async () => {
    const server = await comfy({ stepMs: 20 });
    await seedComfyModel(service.database.db, "comfy/sd15", [server.url], COMFY_TXT2IMG);
    const model = await client.models.get("comfy/sd15");
    expect(Object.keys(model.input_schema.properties as object).sort()).toEqual([
      "image_size",
      "num_images",
      "prompt",
      "seed",
      "steps",
    ]);
    const run = await client.runs.create("comfy/sd15", {
      input: { prompt: "a lighthouse", image_size: "landscape_4_3", num_images: 2, steps: 6 },
    });
    const logs: string[] = [];
    const shown: unknown[] = [];
    for await (const event of client.stream(run.run_id)) {
      if (event.type === "progress" && event.progress.logs) logs.push(event.progress.logs);
      if (event.type === "progress" && event.progress.output) shown.push(event.progress.output);
    }
    const done = await ended(run.run_id);
    expect(done).toMatchObject({ status: "COMPLETED", tokens_charged: 10 });
    // The images were shown as the SaveImage node reported them, before the run ended: the same files.
    expect(shown.at(-1)).toEqual((done as unknown as { output: unknown }).output);
    for (const url of imagesOf(done))
      expect(pngSize(Buffer.from(await (await fetch(url)).arrayBuffer()))).toEqual({
        width: 1024,
        height: 768,
      });
    const sent = server.prompts.at(-1)!;
    // Its messages go to the worker's socket (its client id); its run is named in its extra_data.
    expect(sent.clientId).toMatch(/^svc-/);
    expect(sent.extraData.svc_run_id).toBe(run.run_id);
    expect(sent.prompt["6"]!.inputs.text).toBe("a lighthouse");
    expect(sent.prompt["5"]!.inputs).toMatchObject({ width: 1024, height: 768, batch_size: 2 });
    expect(sent.prompt["3"]!.inputs.steps).toBe(6);
    expect(typeof sent.prompt["3"]!.inputs.seed).toBe("number");
    expect(logs.at(-1)).toMatch(/step 6\/6/);
  });

  it("when an operator imports a workflow with the CLI, then its bindings are its input and it runs", async () => {
    const server = await comfy();
    const dir = await mkdtemp(join(tmpdir(), "comfy-import-"));
    await writeFile(join(dir, "workflow.json"), JSON.stringify(COMFY_TXT2IMG.workflow));
    await writeFile(join(dir, "bindings.json"), JSON.stringify(COMFY_TXT2IMG.bindings));
    const [made] = await adminCli(service.database.db, [
      "models",
      "import",
      "--comfyui",
      server.url,
      "--workflow",
      join(dir, "workflow.json"),
      "--bindings",
      join(dir, "bindings.json"),
      "--id",
      "you/sd15-comfy",
      "--price",
      "2",
    ]);
    expect(made).toMatchObject({
      id: "you/sd15-comfy",
      pricing: { unit: "image", units_from: "num_images" },
    });
    const run = await ended(
      (await client.runs.create("you/sd15-comfy", { input: { prompt: "imported" } })).run_id,
    );
    expect(run).toMatchObject({ status: "COMPLETED", tokens_charged: 2 });
    await writeFile(
      join(dir, "bindings.json"),
      JSON.stringify([{ field: "prompt", node: "66", input: "text" }]),
    );
    await expect(
      adminCli(service.database.db, [
        "models",
        "import",
        "--comfyui",
        server.url,
        "--workflow",
        join(dir, "workflow.json"),
        "--bindings",
        join(dir, "bindings.json"),
        "--id",
        "you/broken",
        "--price",
        "2",
      ]),
    ).rejects.toThrow(/no node 66 in the workflow/);
  });

  it("when ComfyUI refuses the workflow (node_errors), then the run fails with its words, charged nothing", async () => {
    const server = await comfy();
    const broken = structuredClone(COMFY_TXT2IMG);
    delete (broken.workflow["7"]!.inputs as Record<string, unknown>).text;
    await seedComfyModel(service.database.db, "comfy/broken", [server.url], broken);
    const run = await ended((await client.runs.create("comfy/broken", { input: { prompt: "x" } })).run_id);
    expect(run).toMatchObject({ status: "FAILED", error: { code: "INVALID_INPUT" } });
    expect((run as { error: { message: string } }).error.message).toMatch(/Required input is missing/);
  });

  it("when a run with an image input runs, then the image is uploaded and named in its LoadImage node", async () => {
    const server = await comfy();
    const img2img = structuredClone(COMFY_TXT2IMG) as typeof COMFY_TXT2IMG & {
      workflow: Record<string, unknown>;
    };
    (img2img.workflow as Record<string, unknown>)["10"] = {
      class_type: "LoadImage",
      inputs: { image: "example.png" },
    };
    img2img.bindings = [
      ...COMFY_TXT2IMG.bindings,
      { field: "image", node: "10", input: "image", file: true } as never,
    ];
    await seedComfyModel(service.database.db, "comfy/img2img", [server.url], img2img);
    const png = testPng(16, 16, "a start");
    const file = await client.files.create(png);
    const run = await ended(
      (await client.runs.create("comfy/img2img", { input: { prompt: "x", image: file.id } })).run_id,
    );
    expect(run.status).toBe("COMPLETED");
    const name = String(server.prompts.at(-1)!.prompt["10"]!.inputs.image);
    expect(server.uploads.get(name)!.equals(png)).toBe(true);
  });

  it("when a running prompt's run is canceled, then it is interrupted on the server, and a waiting one never reaches it", async () => {
    const server = await comfy({ stepMs: 200 });
    await seedComfyModel(service.database.db, "comfy/long", [server.url], COMFY_TXT2IMG);
    const first = await client.runs.create("comfy/long", { input: { prompt: "long", steps: 50 } });
    const second = await client.runs.create("comfy/long", { input: { prompt: "waiting", steps: 50 } });
    await waitFor(async () =>
      server.prompts.some((p) => p.extraData.svc_run_id === first.run_id && p.status === "running")
        ? true
        : null,
    );
    // One prompt per server: the second waits in our queue, not in ComfyUI's.
    expect((await client.runs.get(second.run_id)).status).toBe("QUEUED");
    expect(server.prompts.filter((p) => p.status === "pending")).toHaveLength(0);
    await client.runs.cancel(second.run_id);
    await client.runs.cancel(first.run_id);
    expect(await ended(first.run_id)).toMatchObject({ status: "CANCELED", tokens_charged: 0 });
    await waitFor(async () => (server.interrupts.length ? true : null));
    expect(server.interrupts).toEqual([
      server.prompts.find((p) => p.extraData.svc_run_id === first.run_id)!.id,
    ]);
    expect(server.prompts.some((p) => p.extraData.svc_run_id === second.run_id)).toBe(false);
  });

  it("when the server goes down, then runs wait QUEUED and start once it is back", async () => {
    const server = await comfy();
    await seedComfyModel(service.database.db, "comfy/flaky", [server.url], COMFY_TXT2IMG);
    expect(
      (await ended((await client.runs.create("comfy/flaky", { input: { prompt: "up" } })).run_id)).status,
    ).toBe("COMPLETED");
    await server.stop();
    await waitFor(async () => ((await client.models.get("comfy/flaky")).capacity === 0 ? true : null), {
      what: "the server's slot to go",
    });
    const run = await client.runs.create("comfy/flaky", { input: { prompt: "later" } });
    // A window in which nothing may happen: the run must not start while its server is down.
    await new Promise((r) => setTimeout(r, 300));
    expect((await client.runs.get(run.run_id)).status).toBe("QUEUED");
    await server.start();
    expect((await ended(run.run_id)).status).toBe("COMPLETED");
  });

  it("when the worker is killed mid-prompt, then the next one re-attaches to it: no prompt is sent twice, and its end is seen at once", async () => {
    const server = await comfy({ stepMs: 100 });
    await seedComfyModel(service.database.db, "comfy/reattach", [server.url], COMFY_TXT2IMG);
    const run = await client.runs.create("comfy/reattach", { input: { prompt: "survive", steps: 150 } });
    await waitFor(async () =>
      server.prompts.some((p) => p.extraData.svc_run_id === run.run_id) ? true : null,
    );
    worker.child.kill("SIGKILL");
    await worker.exited;
    worker = await service.startWorker({ METRICS_PORT: String(await freePort()) });
    // The run is taken over once its backstop job comes due, or the sweeper gives its lease one
    // (however long a loaded machine takes).
    const reattached = worker
      .waitForLine((l) => l.message === "comfyui prompt re-attached", 80_000)
      .then(() => Date.now());
    const done = await ended(run.run_id, client, 80_000);
    expect(done).toMatchObject({ status: "COMPLETED" });
    const prompts = server.prompts.filter((p) => p.extraData.svc_run_id === run.run_id);
    expect(prompts).toHaveLength(1);
    // ComfyUI tells the prompt's end only to the dead worker's socket; its queue change reaches
    // every socket, and the run's end follows it (not a periodic poll's half a minute later).
    const seenAfter =
      new Date(done.completed_at!).getTime() - Math.max(prompts[0]!.endedAt!, await reattached);
    expect(seenAfter).toBeLessThan(5_000);
  }, 120_000);

  it("when the server dies mid-prompt, then the run fails MODEL_ERROR within seconds, charged nothing", async () => {
    const server = await comfy({ stepMs: 100 });
    await seedComfyModel(service.database.db, "comfy/dies", [server.url], COMFY_TXT2IMG);
    const run = await client.runs.create("comfy/dies", { input: { prompt: "doomed", steps: 300 } });
    await waitFor(async () =>
      server.prompts.some((p) => p.extraData.svc_run_id === run.run_id && p.status === "running")
        ? true
        : null,
    );
    const killedAt = Date.now();
    await server.stop();
    const failed = await ended(run.run_id, client, 20_000);
    expect(failed).toMatchObject({ status: "FAILED", error: { code: "MODEL_ERROR" } });
    const row = await service.database.db.run.findUniqueOrThrow({ where: { id: run.run_id } });
    expect(row.tokensCharged ?? 0).toBe(0);
    expect(row.completedAt!.getTime() - killedAt).toBeLessThan(10_000);
  }, 60_000);

  it("when two workflows are imported on one server, then the server's one place is shared: no prompt waits in ComfyUI's own queue", async () => {
    const server = await comfy({ stepMs: 20 });
    await seedComfyModel(service.database.db, "comfy/shared-a", [server.url], COMFY_TXT2IMG);
    await seedComfyModel(service.database.db, "comfy/shared-b", [`${server.url}/`], COMFY_TXT2IMG);
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        client.runs.create(i % 2 ? "comfy/shared-b" : "comfy/shared-a", { input: { prompt: `s${i}` } }),
      ),
    );
    for (const run of runs) expect((await ended(run.run_id)).status).toBe("COMPLETED");
    // Each prompt reached the server only once the one before it had ended there.
    const prompts = server.prompts
      .filter((p) => runs.some((r) => r.run_id === p.extraData.svc_run_id))
      .sort((x, y) => x.queuedAt - y.queuedAt);
    expect(prompts).toHaveLength(8);
    for (let i = 1; i < prompts.length; i++)
      expect(prompts[i]!.queuedAt).toBeGreaterThanOrEqual(prompts[i - 1]!.endedAt!);
  });

  it("when two accounts burst at a pool of three ComfyUI servers, then they take turns and no server runs two prompts at once", async () => {
    const servers = await Promise.all([comfy({ stepMs: 30 }), comfy({ stepMs: 30 }), comfy({ stepMs: 30 })]);
    await seedComfyModel(
      service.database.db,
      "comfy/pool",
      servers.map((s) => s.url),
      COMFY_TXT2IMG,
    );
    const a = (await service.account(10_000)).client;
    const b = (await service.account(10_000)).client;
    const runsA = await Promise.all(
      Array.from({ length: 12 }, (_, i) => a.runs.create("comfy/pool", { input: { prompt: `a${i}` } })),
    );
    const runsB = await Promise.all(
      Array.from({ length: 12 }, (_, i) => b.runs.create("comfy/pool", { input: { prompt: `b${i}` } })),
    );
    await Promise.all([...runsA.map((r) => ended(r.run_id, a)), ...runsB.map((r) => ended(r.run_id, b))]);
    const started = servers
      .flatMap((s) => s.prompts)
      .sort((x, y) => x.startedAt! - y.startedAt!)
      .map((p) => (runsA.some((r) => r.run_id === p.extraData.svc_run_id) ? "A" : "B"));
    // B's first runs start within the next round of A's, not after A's twelve.
    expect(started.slice(0, 10).filter((x) => x === "B").length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...servers.map((s) => s.maxConcurrent))).toBe(1);
    expect(servers.every((s) => s.prompts.length >= 4)).toBe(true);
  }, 60_000);
});
