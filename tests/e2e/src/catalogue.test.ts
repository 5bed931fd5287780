import type { ModelRunClient } from "@svc/sdk";
import { startService, type E2EService } from "./service.js";

// Every model a client can list honours its category's contract (interface spec: image models
// take prompt, image_size and num_images and answer output.images), walked as a client would,
// against the built API and worker on the shipped catalogue alone.
describe("the listed catalogue", () => {
  let service: E2EService;
  let client: ModelRunClient;

  beforeAll(async () => {
    service = await startService();
    // The test fixtures' models are not what operators ship.
    await service.database.db.model.deleteMany({ where: { id: { startsWith: "test/" } } });
    await service.startApi();
    await service.startWorker();
    ({ client } = await service.account(100_000));
  });
  afterAll(() => service?.stop());

  const fetchFile = async (url: string) => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    return { type: res.headers.get("content-type") ?? "", bytes: Buffer.from(await res.arrayBuffer()) };
  };

  it("when every listed model is run with its category's parameters, then each answers the category's output shape", async () => {
    const { models } = await client.models.list({ limit: 200 });
    const categories = new Set(models.map((m) => m.category));
    expect([...categories].sort()).toEqual(["audio", "image", "video"]);
    for (const model of models) {
      if (model.category === "image") {
        // The spec's parameters, with a size that is not the default.
        const run = await client.run(model.id, {
          input: { prompt: "a lighthouse at dawn", image_size: "landscape_4_3", num_images: 2 },
        });
        expect(Object.keys(run.output ?? {})).toEqual(["images"]);
        const images = run.output!.images as string[];
        expect(images).toHaveLength(2);
        for (const url of images) {
          const { type, bytes } = await fetchFile(url);
          expect(type).toBe("image/png");
          // PNG IHDR: width and height, big-endian, at bytes 16 and 20.
          expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([1024, 768]);
        }
      } else {
        const run = await client.run(model.id, { input: { prompt: "a lighthouse at dawn" } });
        expect(Object.keys(run.output ?? {})).toEqual([model.category]);
        const { type } = await fetchFile(run.output![model.category] as string);
        expect(type.startsWith(`${model.category}/`)).toBe(true);
      }
    }
  });

  it("when the hello-world model is used by its id, then it is free with a test key and answers at once, though never listed", async () => {
    const { models } = await client.models.list({ limit: 200 });
    expect(models.map((m) => m.id)).not.toContain("acme/echo");
    const { testClient } = await service.account(0);
    const run = await testClient.run("acme/echo", { input: { prompt: "hello" } });
    expect(run).toMatchObject({
      status: "COMPLETED",
      output: { echo: { prompt: "hello" } },
      tokens_charged: 0,
    });
  });
});
