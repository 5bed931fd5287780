import express from "express";
import request from "supertest";
import { z } from "zod";
import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import type { AppDeps } from "../deps.js";
import { registerGroup } from "../openapi/register.js";
import { errorHandler } from "./errorHandler.js";
import { documentedPath, expressPath, mountRoutes, route, type RouteGroup } from "./route.js";
import { queryInt } from "./validate.js";

const echo = route({
  method: "post",
  path: "/things/{thingId+}/echo",
  summary: "Echo",
  params: z.object({ thingId: z.string() }),
  query: z.object({ n: queryInt(1, 9, 1) }),
  headers: z.object({ "x-flavour": z.enum(["sweet", "sour"]).optional() }),
  body: { schema: z.strictObject({ word: z.string() }), example: { word: "hi" } },
  guards: ["owners"],
  errors: [404],
  reply: {
    status: 201,
    schema: z.object({ data: z.object({ id: z.string(), n: z.number(), word: z.string() }) }),
    description: "Echoed",
  },
  handler: ({ params, query, headers, body }) => ({
    data: { id: params.thingId, n: query.n, word: `${body.word}${headers["x-flavour"] ? "!" : ""}` },
  }),
});

const deps = {} as AppDeps;
const silent = { error() {} } as never;

function app(owners: express.RequestHandler | null) {
  const a = express();
  a.use(express.json());
  a.use(mountRoutes(express.Router(), [echo], deps, { runCreation: null, owners, operators: null }));
  a.use(errorHandler(silent, 1_000));
  return a;
}

describe("declared routes", () => {
  it("when a path is declared, then Express and OpenAPI each get their spelling", () => {
    expect(expressPath("/models/{modelId+}/run")).toBe("/models/*modelId/run");
    expect(expressPath("/runs/{runId}/cancel")).toBe("/runs/:runId/cancel");
    expect(documentedPath("/models/{modelId+}/run")).toBe("/models/{modelId}/run");
  });

  it("when a request matches, then the handler gets parsed parts and its answer is sent with the declared status", async () => {
    const res = await request(app(null))
      .post("/things/a/b/c/echo?n=3")
      .set("x-flavour", "sweet")
      .send({ word: "hello" })
      .expect(201);
    expect(res.body).toEqual({ data: { id: "a/b/c", n: 3, word: "hello!" } });
  });

  it("when a part does not parse, then the answer is a 400 naming where and which field", async () => {
    const bad = async (path: string, body: object, flavour = "sweet") =>
      (await request(app(null)).post(path).set("x-flavour", flavour).send(body).expect(400)).body.error;
    expect(await bad("/things/a/echo?n=10", { word: "x" })).toMatchObject({
      code: "VALIDATION_ERROR",
      message: expect.stringMatching(/^Invalid request query: n: /),
      details: [{ path: "n" }],
    });
    expect(await bad("/things/a/echo", { word: "x" }, "bitter")).toMatchObject({
      message: expect.stringMatching(/^Invalid request header: x-flavour: /),
      details: [{ path: "x-flavour" }],
    });
    expect(await bad("/things/a/echo", { word: 1, extra: true })).toMatchObject({
      message: expect.stringMatching(/^Invalid request body: .+ \(and 1 more in details\)\.$/),
    });
  });

  it("when a route names a guard, then the mount's handler for it runs first, and null means none", async () => {
    const refuse: express.RequestHandler = (_req, res) => void res.status(403).json({ refused: true });
    await request(app(refuse)).post("/things/a/echo").send({ word: "x" }).expect(403);
    await request(app(null)).post("/things/a/echo").send({ word: "x" }).expect(201);
  });

  it("when a group is documented, then each route is an operation with its group's errors and its guards' errors", () => {
    const group: RouteGroup = {
      prefix: "/v9",
      security: [{ bearer: [] }],
      errors: [400, 500],
      rateHeaders: true,
      routes: [echo],
    };
    const registry = new OpenAPIRegistry();
    registerGroup(registry, group);
    const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
    });
    const op = doc.paths!["/v9/things/{thingId}/echo"]!.post!;
    expect(Object.keys(op.responses!).sort()).toEqual(["201", "400", "403", "404", "500"]);
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys((op.responses!["201"] as { headers: object }).headers)).toContain("RateLimit-Limit");
    expect((op.parameters as { name: string }[]).map((p) => p.name).sort()).toEqual([
      "n",
      "thingId",
      "x-flavour",
    ]);
  });
});
