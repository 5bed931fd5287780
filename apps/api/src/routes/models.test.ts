import request from "supertest";
import { loadCatalogue, seedCatalogue } from "@svc/db";
import { createAccountWithKeys } from "@svc/testkit";
import { startApi, type ApiHarness } from "../test/harness.js";

describe("models catalogue (seeded catalogue/models.json)", () => {
  let api: ApiHarness;
  let auth: { Authorization: string };

  beforeAll(async () => {
    api = await startApi();
    await seedCatalogue(api.database.db, await loadCatalogue());
    const { liveKey } = await createAccountWithKeys(api.database.db);
    auth = { Authorization: `Bearer ${liveKey}` };
  });
  afterAll(() => api.close());

  const list = (query = "") => request(api.app).get(`/api/v1/models${query}`).set(auth);

  it("when listing with no parameters, then active models come with the default page and total", async () => {
    const res = await list().expect(200);
    expect(res.body.data).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(res.body.data.models.map((m: { id: string }) => m.id).sort()).toEqual(
      ["acme/motion/clip", "acme/pixel-hq", "acme/pixel/fast", "acme/voice/tone"].sort(),
    );
  });

  it("when the hello-world model is looked for, then no listing shows it (it makes no images) but it is read and run by its id", async () => {
    for (const query of ["", "?category=image", "?limit=200"]) {
      const res = await list(query).expect(200);
      const ids = res.body.data.models.map((m: { id: string }) => m.id);
      expect(ids).not.toContain("acme/echo");
      // Nor acme/upscale: an image model that takes an image, not the category's prompt and sizes.
      expect(ids).not.toContain("acme/upscale");
    }
    await request(api.app).get("/api/v1/models/acme/upscale").set(auth).expect(200);
    const echo = await request(api.app).get("/api/v1/models/acme/echo").set(auth).expect(200);
    expect(echo.body.data).toMatchObject({ id: "acme/echo", status: "active" });
    await request(api.app)
      .post("/api/v1/models/acme/echo/run")
      .set(auth)
      .send({ input: { prompt: "hello" } })
      .expect(201);
  });

  it("when listing, then each model has exactly the spec's fields with status active", async () => {
    const res = await list().expect(200);
    const hq = res.body.data.models.find((m: { id: string }) => m.id === "acme/pixel-hq");
    expect(hq).toEqual({
      id: "acme/pixel-hq",
      name: "Pixel HQ",
      description: expect.any(String),
      category: "image",
      outputs_image: true,
      outputs_video: false,
      outputs_audio: false,
      estimated_tokens: 5,
      status: "active",
      highlighted: true,
    });
    expect(
      res.body.data.models.find((m: { id: string }) => m.id === "acme/pixel/fast").estimated_tokens,
    ).toBe(2);
  });

  it("when a model is not active, then it is hidden from the list but readable by id with its status", async () => {
    const res = await list().expect(200);
    expect(res.body.data.models.map((m: { id: string }) => m.id)).not.toContain("acme/pixel-classic");
    const one = await request(api.app).get("/api/v1/models/acme/pixel-classic").set(auth).expect(200);
    expect(one.body.data.status).toBe("deprecated");
  });

  it.each([
    ["?category=image", ["acme/pixel-hq", "acme/pixel/fast"]],
    ["?category=video", ["acme/motion/clip"]],
    ["?category=audio", ["acme/voice/tone"]],
    ["?output_type=image", ["acme/pixel-hq", "acme/pixel/fast"]],
    ["?output_type=video", ["acme/motion/clip"]],
    ["?output_type=audio", ["acme/voice/tone"]],
    ["?highlighted=true", ["acme/pixel-hq"]],
    ["?highlighted=false", ["acme/motion/clip", "acme/pixel/fast", "acme/voice/tone"]],
    ["?category=image&highlighted=true", ["acme/pixel-hq"]],
    ["?category=audio&output_type=image", []],
  ])(
    "when filtering by %s, then exactly the matching models and their total come back",
    async (query, ids) => {
      const res = await list(query).expect(200);
      expect(res.body.data.models.map((m: { id: string }) => m.id).sort()).toEqual([...ids].sort());
      expect(res.body.data.total).toBe(ids.length);
    },
  );

  it.each([
    ["?category=music", "category"],
    ["?output_type=text", "output_type"],
    ["?highlighted=yes", "highlighted"],
    ["?limit=0", "limit"],
    ["?limit=201", "limit"],
    ["?limit=-1", "limit"],
    ["?limit=abc", "limit"],
    ["?limit=1.5", "limit"],
    ["?offset=-1", "offset"],
  ])("when the query is %s, then it is a 400 naming %s", async (query, field) => {
    const res = await list(query).expect(400);
    expect(res.body.error).toMatchObject({ code: "VALIDATION_ERROR", request_id: expect.any(String) });
    expect(res.body.error.details).toContainEqual({ path: field, message: expect.any(String) });
  });

  it("when several query parameters are bad, then every one is listed", async () => {
    const res = await list("?limit=0&offset=-5&category=x").expect(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      "category",
      "limit",
      "offset",
    ]);
  });

  it("when paging one model at a time, then the pages add up to the full list in a stable order", async () => {
    const full = (await list().expect(200)).body.data.models.map((m: { id: string }) => m.id);
    const paged: string[] = [];
    for (let offset = 0; offset < 4; offset++) {
      const page = await list(`?limit=1&offset=${offset}`).expect(200);
      expect(page.body.data).toMatchObject({ total: 4, limit: 1, offset });
      paged.push(page.body.data.models[0].id);
    }
    expect(paged).toEqual(full);
  });

  it("when the offset is past the end, then the page is empty and total still counts all", async () => {
    const res = await list("?offset=10").expect(200);
    expect(res.body.data).toEqual({ models: [], total: 4, limit: 50, offset: 10 });
  });

  it("when reading a model with a two-segment id, then its input schema and pricing come too", async () => {
    const res = await request(api.app).get("/api/v1/models/acme/pixel-hq").set(auth).expect(200);
    expect(res.body.data).toMatchObject({
      id: "acme/pixel-hq",
      category: "image",
      estimated_tokens: 5,
      status: "active",
    });
    const schema = res.body.data.input_schema;
    expect(schema.required).toEqual(["prompt"]);
    expect(schema.properties.image_size).toMatchObject({
      default: "square_hd",
      enum: expect.arrayContaining(["landscape_16_9"]),
    });
    expect(schema.properties.num_images).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 4,
      default: 1,
    });
    expect(schema.properties.prompt.description).toEqual(expect.any(String));
    expect(res.body.data.pricing).toMatchObject({
      unit: "image",
      tokens_per_unit: 5,
      units_from: "num_images",
    });
  });

  it("when reading a model with a three-segment id, then it is found", async () => {
    const res = await request(api.app).get("/api/v1/models/acme/pixel/fast").set(auth).expect(200);
    expect(res.body.data).toMatchObject({ id: "acme/pixel/fast", estimated_tokens: 2 });
  });

  it("when the slashes of an id are percent-encoded, then the same model is found", async () => {
    await request(api.app).get("/api/v1/models/acme%2Fpixel%2Ffast").set(auth).expect(200);
  });

  it.each(["/api/v1/models/acme/nope", "/api/v1/models/acme", "/api/v1/models/acme/pixel/fast/extra"])(
    "when the model %s does not exist, then it is a 404 MODEL_NOT_FOUND",
    async (path) => {
      const res = await request(api.app).get(path).set(auth).expect(404);
      expect(res.body.error.code).toBe("MODEL_NOT_FOUND");
    },
  );
});

describe("models catalogue (250 generated models)", () => {
  let api: ApiHarness;
  let auth: { Authorization: string };

  beforeAll(async () => {
    api = await startApi();
    const [template] = await loadCatalogue();
    await seedCatalogue(
      api.database.db,
      Array.from({ length: 250 }, (_, i) => ({
        ...template!,
        id: `bulk/m${String(i).padStart(3, "0")}`,
        category: i % 5 === 0 ? ("audio" as const) : ("image" as const),
        outputs: i % 5 === 0 ? (["audio"] as const as ["audio"]) : (["image"] as const as ["image"]),
        highlighted: i % 10 === 0,
        listed: true,
        status: i % 50 === 49 ? "disabled" : "active",
      })),
    );
    const { liveKey } = await createAccountWithKeys(api.database.db);
    auth = { Authorization: `Bearer ${liveKey}` };
  });
  afterAll(() => api.close());

  it("when the limit is 200, then 200 models come back and total counts every active one", async () => {
    const res = await request(api.app).get("/api/v1/models?limit=200").set(auth).expect(200);
    expect(res.body.data.models).toHaveLength(200);
    expect(res.body.data.total).toBe(245);
  });

  it("when reading the last page, then only the remainder comes back, with no overlap", async () => {
    const first = await request(api.app).get("/api/v1/models?limit=200").set(auth).expect(200);
    const last = await request(api.app).get("/api/v1/models?limit=200&offset=200").set(auth).expect(200);
    expect(last.body.data.models).toHaveLength(45);
    const ids = new Set(
      [...first.body.data.models, ...last.body.data.models].map((m: { id: string }) => m.id),
    );
    expect(ids.size).toBe(245);
  });

  it("when filtering, then total counts the filtered set, not the page", async () => {
    const audio = await request(api.app).get("/api/v1/models?category=audio&limit=5").set(auth).expect(200);
    expect(audio.body.data.models).toHaveLength(5);
    expect(audio.body.data.total).toBe(50);
    const highlighted = await request(api.app)
      .get("/api/v1/models?highlighted=true&limit=1")
      .set(auth)
      .expect(200);
    expect(highlighted.body.data.total).toBe(25);
  });
});
