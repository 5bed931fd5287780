import { utimes } from "node:fs/promises";
import { join } from "node:path";
import request from "supertest";
import { createAccountWithKeys, waitFor, type SpawnedApp } from "@svc/testkit";
import { PUBLIC_BASE_URL, setupE2E, startWorker, stopWorker, type E2E } from "./test/e2e.js";

describe("output retention", () => {
  let ctx: E2E;
  let worker: SpawnedApp;

  beforeAll(async () => {
    ctx = await setupE2E({ OUTPUT_RETENTION_DAYS: "1", OUTPUT_EXPIRY_INTERVAL_MS: "200" });
    worker = await startWorker(ctx.workerEnvFor());
  });
  afterAll(async () => {
    await stopWorker(worker);
    await ctx.api.close();
  });

  const completedOutput = async (key: string) => {
    const runId = (
      await request(ctx.api.app)
        .post("/api/v1/models/test/instant/run")
        .set("Authorization", `Bearer ${key}`)
        .send({ input: { prompt: "kept for a day" } })
        .expect(201)
    ).body.data.run_id as string;
    const run = await waitFor(
      async () => {
        const r = (
          await request(ctx.api.app)
            .get(`/api/v1/runs/${runId}`)
            .set("Authorization", `Bearer ${key}`)
            .expect(200)
        ).body.data;
        return r.status === "COMPLETED" ? r : null;
      },
      { what: `run ${runId} to complete` },
    );
    return (run.output.images as string[])[0]!.slice(PUBLIC_BASE_URL.length);
  };

  it("when an output is older than OUTPUT_RETENTION_DAYS, then the worker deletes its file and its URL answers 410 OUTPUT_EXPIRED, while newer outputs stay", async () => {
    const { liveKey } = await createAccountWithKeys(ctx.api.database.db, 100);
    const old = await completedOutput(liveKey);
    const fresh = await completedOutput(liveKey);
    await request(ctx.api.app).get(old).expect(200);
    const token = old.split("/")[2]!;
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    await utimes(join(ctx.outputDir, token), twoDaysAgo, twoDaysAgo);
    const gone = await waitFor(
      async () => {
        const res = await request(ctx.api.app).get(old);
        return res.status === 410 ? res : null;
      },
      { what: "the old output to be expired" },
    );
    expect(gone.body.error).toMatchObject({ code: "OUTPUT_EXPIRED", request_id: expect.any(String) });
    await request(ctx.api.app).get(fresh).expect(200);
    await request(ctx.api.app).get(`/files/${token}/not-there.png`).expect(410);
    await request(ctx.api.app).get("/files/out_AAAAAAAAAAAAAAAAAAAAAA/0.png").expect(404);
  });
});
