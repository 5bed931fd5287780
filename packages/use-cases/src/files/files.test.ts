import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileFieldsOf, idPattern } from "@svc/core";
import { guardedAgents } from "@svc/net";
import { localStore } from "@svc/storage";
import { createAccountWithKeys, createTestDatabase, testPng, type TestDatabase } from "@svc/testkit";
import { ingestFile, resolveFileInputs, runFileInputs, type FileDeps } from "./files.js";

// A run's file inputs as the service resolves them, with private addresses refused (what a
// production API does; the end-to-end tests run with WEBHOOK_ALLOW_PRIVATE_URLS for their HTTPS
// server on 127.0.0.1).
describe("file inputs of a run", () => {
  let database: TestDatabase;
  let dir: string;
  let deps: FileDeps;
  let owner: { accountId: string; mode: "live"; apiKeyId: string | null };
  const fields = fileFieldsOf({
    properties: { image: { type: "string", format: "uri", "x-media": "image" } },
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), "svc-files-"));
    const { account } = await createAccountWithKeys(database.db, 10);
    owner = { accountId: account.id, mode: "live", apiKeyId: null };
    deps = {
      db: database.db,
      store: localStore(dir),
      agents: guardedAgents(),
      files: {
        maxBytes: 1024 * 1024,
        maxPixels: 1_000_000,
        dataUrlMaxBytes: 64 * 1024,
        retentionHours: 1,
        fetchTimeoutMs: 2_000,
        allowPrivate: false,
        publicBaseUrl: "https://svc.test",
        quotaBytes: { live: 10 * 1024 * 1024, test: 1024 * 1024 },
      },
    };
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    "https://127.0.0.1/cat.png",
    "https://[::1]/cat.png",
    "https://[::ffff:127.0.0.1]/cat.png",
    "https://2130706433/cat.png",
    "https://0x7f.1/cat.png",
    "https://10.0.0.8/cat.png",
    "https://169.254.169.254/latest/meta-data",
    "https://localhost/cat.png",
  ])(
    "when the URL %s names an internal address, then it is refused (a literal at once, a name when it resolves), naming the field",
    async (url) => {
      await expect(resolveFileInputs(deps, owner, fields, { image: url })).rejects.toMatchObject({
        code: "VALIDATION_ERROR",
        details: [{ path: "input.image", message: expect.stringMatching(/public addresses|refused/) }],
      });
      expect(await readdir(dir)).toEqual([]);
    },
  );

  it("when a data URL holds an image, then it becomes a file of the owner's, and the worker later gets a signed URL for it", async () => {
    const png = testPng(10, 10);
    const input = await resolveFileInputs(deps, owner, fields, {
      image: `data:image/png;base64,${png.toString("base64")}`,
      other: 1,
    });
    expect(input.other).toBe(1);
    expect(input.image).toMatch(idPattern("file"));
    const signing = {
      db: database.db,
      store: deps.store,
      secretsKey: Buffer.alloc(32, 1),
      publicBaseUrl: "https://svc.test",
      ttlSeconds: 60,
    };
    const forServer = await runFileInputs(signing, fields, input, "urls");
    expect(forServer?.image).toMatch(
      new RegExp(`^https://svc\\.test/files/inputs/${String(input.image)}\\.png\\?expires=\\d+&signature=`),
    );
    expect(await runFileInputs(signing, fields, input, "ids")).toEqual(input);
    await database.db.file.update({ where: { id: String(input.image) }, data: { deletedAt: new Date() } });
    expect(await runFileInputs(signing, fields, input, "urls")).toBeUndefined();
  });

  it("when the URL names an internal host or one that cannot be reached, then both get the same message", async () => {
    const messageFor = (url: string, using = deps) =>
      resolveFileInputs(using, owner, fields, { image: url }).catch(
        (error: { details: { message: string }[] }) => error.details[0]!.message,
      );
    const internal = await messageFor("https://localhost/cat.png");
    expect(internal).toMatch(/public addresses/);
    // A host that cannot be reached (here a closed port, with private addresses allowed so that
    // the connection is tried: no query leaves the machine).
    const open = { ...deps, files: { ...deps.files, allowPrivate: true } };
    expect(await messageFor("https://127.0.0.1:1/cat.png", open)).toBe(internal);
  });

  it("when an account's files reach its quota, then the next is refused, exactly, even when they come at once", async () => {
    const { account } = await createAccountWithKeys(database.db, 10);
    const test = { accountId: account.id, mode: "test" as const, apiKeyId: null };
    // 200 KB each against the test quota of 1 MiB: five fit, whatever the order they land in.
    const png = Buffer.concat([testPng(10, 10), Buffer.alloc(200 * 1024 - testPng(10, 10).length)]);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => ingestFile(deps, test, png, "upload")),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    for (const r of results.filter((r) => r.status === "rejected"))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ reason: "quota" });
    // Refused at once once full, before a byte is stored; live files are counted apart.
    await expect(ingestFile(deps, test, png, "upload")).rejects.toMatchObject({
      reason: "quota",
      message: expect.stringMatching(/FILE_QUOTA_BYTES_TEST/),
    });
    await expect(ingestFile(deps, { ...test, mode: "live" }, png, "upload")).resolves.toMatchObject({
      size: png.length,
    });
    // Every refused file's bytes went: the store holds the six that were recorded.
    const stored = await readdir(join(dir, ".inputs"));
    const rows = await database.db.file.findMany({ where: { accountId: account.id } });
    expect(rows).toHaveLength(6);
    for (const row of rows) expect(stored.some((name) => name.startsWith(row.id))).toBe(true);
  });

  it("when a small image carries megabytes besides its pixels, then a field of bounded pixels refuses it before any runner reads it", async () => {
    const upscaler = fileFieldsOf({
      properties: { image: { type: "string", format: "uri", "x-media": "image", "x-max-pixels": 65536 } },
    });
    // 16x16 pixels, then 900 KB of metadata-like padding: far more than such an image needs.
    const png = testPng(16, 16);
    const padded = await ingestFile(deps, owner, Buffer.concat([png, Buffer.alloc(900 * 1024, 1)]), "upload");
    await expect(resolveFileInputs(deps, owner, upscaler, { image: padded.id })).rejects.toMatchObject({
      details: [{ path: "input.image", message: expect.stringMatching(/at most 524288/) }],
    });
    const plain = await ingestFile(deps, owner, png, "upload");
    await expect(resolveFileInputs(deps, owner, upscaler, { image: plain.id })).resolves.toEqual({
      image: plain.id,
    });
  });
});
