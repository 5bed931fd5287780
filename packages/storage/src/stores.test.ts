import { createCipheriv, createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import S3rver from "s3rver";
import { storeInputFile } from "./inputs.js";
import { inlineWriteGate, localPath, localStore, SYNC_WRITE_MAX_BYTES, writesInline } from "./local.js";
import { outputUrls, runOutputs } from "./outputs.js";
import { s3Store } from "./s3.js";
import { RangeNotSatisfiable, type OutputStore, type S3OutputStore } from "./store.js";

const TOKEN_A = "out_AAAAAAAAAAAAAAAAAAAAAA";
const TOKEN_B = "out_BBBBBBBBBBBBBBBBBBBBBB";
const DAY = 86_400_000;

/** A stream of `chunks` pieces of 1 MiB, made as they are read. */
function megabytes(chunks: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      this.push(sent++ < chunks ? Buffer.alloc(1024 * 1024, sent) : null);
    },
  });
}

const text = async (body: Readable | undefined) => {
  const parts: Buffer[] = [];
  for await (const part of body!) parts.push(part as Buffer);
  return Buffer.concat(parts);
};

/**
 * One execution's outputs on either store: names nobody can derive from another, and the files no
 * client was shown deleted once the execution is over.
 */
function executionOutputs(storeOf: () => OutputStore, read: (key: string) => Promise<boolean>) {
  const base = "https://api.test";
  const keyOf = (url: string) => url.slice(`${base}/files/`.length);

  it("when an execution saves files, then no file's URL can be derived from another's", async () => {
    const outputs = runOutputs(storeOf(), base, Buffer.alloc(32))("run_test");
    const first = await outputs.save("0.png", Buffer.from("a"));
    const second = await outputs.save("1.png", Buffer.from("b"));
    const [token, name] = keyOf(first).split("/");
    expect(keyOf(second).startsWith(`${token}/`)).toBe(true);
    expect(name).toMatch(/^[0-9A-Za-z]{22}-0\.png$/);
    // Knowing the first URL, the second's name is not its index.
    expect(await read(`${token}/1.png`)).toBe(false);
    expect(await read(keyOf(second))).toBe(true);
  });

  it("when the execution is over, then the files not kept go, once the save under way has ended, and later saves are refused", async () => {
    const outputs = runOutputs(storeOf(), base, Buffer.alloc(32))("run_test");
    const shown = await outputs.save("0.png", Buffer.from("shown"));
    const late = new Readable({ read() {} });
    const saving = outputs.save("1.png", late);
    setTimeout(() => late.push(null), 50);
    const discarded = outputs.discardExcept({ images: [shown] });
    const lateUrl = await saving;
    expect(await discarded).toBe(1);
    expect(await read(keyOf(shown))).toBe(true);
    expect(await read(keyOf(lateUrl))).toBe(false);
    await expect(outputs.save("2.png", Buffer.from("after"))).rejects.toThrow(/over/);
  });
}

/** A GIF header of this size (what the type check reads), then `padding` bytes of pixel data. */
const gif = (width: number, height: number, padding = 0) => {
  const header = Buffer.from("GIF89a\0\0\0\0\0\0\0", "latin1");
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  return Buffer.concat([header, Buffer.alloc(padding, 1)]);
};

/** Input files on either store: typed by their first bytes, streamed in whole or not at all. */
function inputFiles(storeOf: () => OutputStore) {
  const limits = { maxBytes: 3 * 1024 * 1024, maxPixels: 10_000 };
  const stored = async (key: string) => {
    const object = await storeOf().read(key, {});
    return object && (await text(object.body));
  };

  it("when a file larger than its head streams in, then it is stored whole under its id, with its size and hash", async () => {
    const bytes = gif(40, 30, 2 * 1024 * 1024);
    const source = Readable.from([
      bytes.subarray(0, 1000),
      bytes.subarray(1000, 1_500_000),
      bytes.subarray(1_500_000),
    ]);
    const file = await storeInputFile(storeOf(), "file_AAAAAAAAAAAAAAAAAAAAAA", source, limits);
    expect(file).toMatchObject({
      contentType: "image/gif",
      width: 40,
      height: 30,
      size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      key: ".inputs/file_AAAAAAAAAAAAAAAAAAAAAA.gif",
    });
    // Compared as bytes: toEqual walks a buffer element by element (seconds for 2 MiB).
    expect((await stored(file.key))?.equals(bytes)).toBe(true);
  });

  it("when a stream passes the size limit, then nothing is stored", async () => {
    const source = Readable.from([
      gif(10, 10),
      ...Array.from({ length: 4 }, () => Buffer.alloc(1024 * 1024)),
    ]);
    await expect(
      storeInputFile(storeOf(), "file_BBBBBBBBBBBBBBBBBBBBBB", source, limits),
    ).rejects.toMatchObject({
      reason: "too_large",
    });
    expect(await stored(".inputs/file_BBBBBBBBBBBBBBBBBBBBBB.gif")).toBeNull();
  });

  it("when the bytes are of no accepted type or an image past the pixel limit, then nothing is read further or stored", async () => {
    let reads = 0;
    const endless = new Readable({
      read() {
        reads++;
        this.push(Buffer.from("<html>".repeat(1000)));
      },
    });
    await expect(
      storeInputFile(storeOf(), "file_CCCCCCCCCCCCCCCCCCCCCC", endless, limits),
    ).rejects.toMatchObject({
      reason: "unsupported",
    });
    expect(endless.destroyed).toBe(true);
    expect(reads).toBeLessThan(500);
    await expect(
      storeInputFile(storeOf(), "file_DDDDDDDDDDDDDDDDDDDDDD", gif(101, 100), limits),
    ).rejects.toMatchObject({ reason: "too_many_pixels" });
    expect(await stored(".inputs/file_DDDDDDDDDDDDDDDDDDDDDD.gif")).toBeNull();
  });
}

describe("S3 store against a real S3-protocol server (s3rver on 127.0.0.1)", () => {
  let server: S3rver;
  let dir: string;
  let store: S3OutputStore;
  const bucket = "svc-outputs";

  /** Makes an object look written `days` ago (s3rver's LastModified is its file's mtime). */
  const age = async (key: string, days: number) => {
    const when = new Date(Date.now() - days * DAY);
    await utimes(join(dir, bucket, "out", `${key}._S3rver_object`), when, when);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-s3-"));
    server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: bucket, configs: [] }],
    });
    const { port } = await server.run();
    process.env.AWS_ACCESS_KEY_ID = "S3RVER";
    process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
    store = s3Store({
      bucket,
      prefix: "out/",
      region: "us-east-1",
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
    });
  });
  afterAll(async () => {
    store.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  inputFiles(() => store);

  executionOutputs(
    () => store,
    async (key) => {
      const object = await store.read(key, {});
      object?.body?.destroy();
      return object !== null;
    },
  );

  it("when a 20 MiB stream is stored, then it lands under the prefix in parts, with the type from its name", async () => {
    await store.put(`${TOKEN_A}/video.mp4`, megabytes(20));
    const object = await store.read(`${TOKEN_A}/video.mp4`, {});
    expect(object).toMatchObject({ status: 200, headers: { "content-length": String(20 * 1024 * 1024) } });
    expect((await text(object!.body)).length).toBe(20 * 1024 * 1024);
    const files = await readdir(join(dir, bucket, "out", TOKEN_A));
    expect(files).toContain("video.mp4._S3rver_object");
  });

  it("when a range is read, then 206 with that range; a current ETag gives 304", async () => {
    await store.put(`${TOKEN_A}/0.png`, Buffer.from("0123456789"));
    const part = await store.read(`${TOKEN_A}/0.png`, { range: "bytes=2-4" });
    expect(part).toMatchObject({ status: 206, headers: { "content-range": "bytes 2-4/10" } });
    expect((await text(part!.body)).toString()).toBe("234");
    const whole = await store.read(`${TOKEN_A}/0.png`, {});
    whole!.body!.destroy();
    expect(await store.read(`${TOKEN_A}/0.png`, { ifNoneMatch: whole!.headers.etag })).toEqual({
      status: 304,
      headers: {},
    });
  });

  it("when a range starts past the end, then it cannot be satisfied", async () => {
    await store.put(`${TOKEN_A}/2.png`, Buffer.from("short"));
    await expect(store.read(`${TOKEN_A}/2.png`, { range: "bytes=100-200" })).rejects.toBeInstanceOf(
      RangeNotSatisfiable,
    );
  });

  it("when a key was never written, then reading it gives null", async () => {
    expect(await store.read(`${TOKEN_B}/nothing.png`, {})).toBeNull();
  });

  it("when the stream fails halfway, then the upload is abandoned and no object appears", async () => {
    let sent = 0;
    const failing = new Readable({
      read() {
        if (sent++ < 12) this.push(Buffer.alloc(1024 * 1024));
        else this.destroy(new Error("model server went away"));
      },
    });
    await expect(store.put(`${TOKEN_B}/broken.mp4`, failing)).rejects.toThrow("model server went away");
    expect(await store.read(`${TOKEN_B}/broken.mp4`, {})).toBeNull();
  });

  it("when the run is canceled during an upload, then the put rejects with the reason and no object appears", async () => {
    const abort = new AbortController();
    let sent = 0;
    const slow = new Readable({
      read() {
        if (sent++ === 8) abort.abort(new Error("canceled"));
        this.push(Buffer.alloc(1024 * 1024));
      },
    });
    await expect(store.put(`${TOKEN_B}/canceled.mp4`, slow, abort.signal)).rejects.toThrow("canceled");
    expect(await store.read(`${TOKEN_B}/canceled.mp4`, {})).toBeNull();
  });

  it("when a signed URL is made, then it downloads without credentials until its lifetime is over", async () => {
    await store.put(`${TOKEN_A}/1.png`, Buffer.from("signed"));
    // X-Amz-Date has whole seconds: a lifetime of 3 s lasts at least 2 from now, however busy the machine.
    const url = await store.signedUrl(`${TOKEN_A}/1.png`, 3);
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("image/png");
    expect(await ok.text()).toBe("signed");
    // (s3rver checks a V4 URL's credential and lifetime, not its signature: AWS and MinIO do.)
    expect(url).toMatch(/X-Amz-Expires=3&.*X-Amz-Signature=[0-9a-f]{64}/);
    // The lifetime is whole seconds from the signing time: wait until the server says expired.
    for (;;) {
      const later = await fetch(url);
      if (later.status === 403) {
        expect(await later.text()).toMatch(/expired/);
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  it("when outputs are older than the retention, then they are deleted, marked, and newer ones stay", async () => {
    const old = "out_CCCCCCCCCCCCCCCCCCCCCC";
    const young = "out_DDDDDDDDDDDDDDDDDDDDDD";
    await store.put(`${old}/0.png`, Buffer.from("a"));
    await store.put(`${old}/1.png`, Buffer.from("b"));
    await store.put(`${young}/0.png`, Buffer.from("c"));
    await age(`${old}/0.png`, 3);
    await age(`${old}/1.png`, 3);
    const before = new Date(Date.now() - DAY);
    expect(await store.isExpired(old)).toBe(false);
    const expired = await store.expire(before);
    expect(expired).toBeGreaterThanOrEqual(1);
    expect(await store.isExpired(old)).toBe(true);
    expect(await store.read(`${old}/0.png`, {})).toBeNull();
    expect(await store.read(`${old}/1.png`, {})).toBeNull();
    expect(await store.read(`${young}/0.png`, {})).not.toBeNull();
    expect(await store.isExpired(young)).toBe(false);
    // A second pass finds nothing more to do.
    expect(await store.expire(before)).toBe(0);
  });

  it("when expired outputs span several listing pages, then every one goes, a token cut by a page boundary too, and `limit` bounds a pass", async () => {
    // s3rver's continuation tokens need DES (scripts/test.sh runs tests with the legacy provider).
    expect(() => createCipheriv("des", Buffer.alloc(8), Buffer.alloc(8))).not.toThrow();
    // 350 tokens of 3 objects: the first listing page (1,000 keys) ends inside a token.
    const tokens = Array.from({ length: 350 }, (_, i) => `out_${String(i).padStart(22, "P")}`);
    const keys = tokens.flatMap((t) => ["0.png", "1.png", "2.png"].map((n) => `${t}/${n}`));
    for (let i = 0; i < keys.length; i += 50)
      await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, Buffer.from("x"))));
    await Promise.all(keys.map((k) => age(k, 3)));
    const before = new Date(Date.now() - DAY);
    expect(await store.expire(before, 10)).toBe(10);
    expect(await store.expire(before)).toBe(340);
    for (const token of [tokens[0]!, tokens[333]!, tokens[334]!, tokens[349]!]) {
      expect(await store.isExpired(token)).toBe(true);
      expect(await store.read(`${token}/2.png`, {})).toBeNull();
    }
    const left = await readdir(join(dir, bucket, "out", tokens[333]!));
    expect(left.filter((f) => f.endsWith("_object"))).toEqual([".expired._S3rver_object"]);
  }, 60_000);

  it("when signed URLs are configured, then a view's output URLs become presigned ones and nothing else changes", async () => {
    await store.put(`${TOKEN_B}/0.png`, Buffer.from("view"));
    const urls = outputUrls(store, { mode: "signed", ttlSeconds: 600, publicBaseUrl: "https://api.test" });
    const view = {
      run_id: "run_1",
      output: { images: [`https://api.test/files/${TOKEN_B}/0.png`], caption: "https://api.test/files/x" },
    };
    const shown = await urls.resolve(view);
    expect(shown.run_id).toBe("run_1");
    expect(shown.output.caption).toBe("https://api.test/files/x");
    const [signed] = shown.output.images;
    expect(signed).toMatch(new RegExp(`/${bucket}/out/${TOKEN_B}/0\\.png\\?.*X-Amz-Expires=600`));
    expect(await (await fetch(signed!)).text()).toBe("view");
    expect(view.output.images[0]).toBe(`https://api.test/files/${TOKEN_B}/0.png`);
  });
});

describe("local store", () => {
  let dir: string;
  let store: OutputStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-local-"));
    store = localStore(dir);
  });

  inputFiles(() => store);

  executionOutputs(
    () => store,
    (key) =>
      stat(localPath(dir, key)).then(
        () => true,
        () => false,
      ),
  );

  it("when outputs are saved for two runs, then each has its own token and URL under /files", async () => {
    const storage = runOutputs(store, "https://api.test/", Buffer.alloc(32));
    const a = await storage("run_test").save("0.png", Buffer.from("a"));
    const b = await storage("run_test").save("0.png", megabytes(3));
    expect(a).toMatch(/^https:\/\/api\.test\/files\/out_[0-9A-Za-z]{22}\/[0-9A-Za-z]{22}-0\.png$/);
    expect(b).not.toBe(a);
    const files = await readdir(dir, { recursive: true });
    expect(files.filter((f) => f.endsWith("-0.png"))).toHaveLength(2);
  });

  it("when bodies in memory either side of the synchronous write's limit are stored, then each file holds its body whole", async () => {
    for (const [name, size] of [
      ["0.png", SYNC_WRITE_MAX_BYTES],
      ["1.png", SYNC_WRITE_MAX_BYTES + 1],
    ] as const) {
      const body = Buffer.alloc(size, name);
      await store.put(`${TOKEN_A}/${name}`, body);
      const read = await store.read(`${TOKEN_A}/${name}`, {});
      expect(Buffer.compare(await text(read!.body), body)).toBe(0);
    }
  });

  it("when the output directory is on a network volume, then small files are not written inline; on a local disk they are", () => {
    // statfs(2) types: NFS, SMB, FUSE; then ext4, XFS, tmpfs, overlayfs.
    for (const remote of [0x6969, 0xfe534d42, 0xff534d42, 0x65735546])
      expect(writesInline(remote)).toBe(false);
    for (const local of [0xef53, 0x58465342, 0x01021994, 0x794c7630]) expect(writesInline(local)).toBe(true);
    expect(writesInline(BigInt(0xef53))).toBe(true);
  });

  it("when inline writes become slow, then small files go through the thread pool, probed now and then (never while the pool writes), and come back inline once the disk is fast", async () => {
    const gate = inlineWriteGate(0.2, 4);
    // Written inline: the method used and the write's duration on the disk of the moment.
    const write = (ms: number) => {
      const inline = gate.inline();
      if (inline) gate.took(ms);
      return inline;
    };
    expect(Array.from({ length: 10 }, () => write(0.02))).not.toContain(false);
    // A disk that takes 1.5 ms to create a file: after the first such write, only probes (one in
    // four) are inline, and they keep finding it slow.
    expect(write(1.5)).toBe(true);
    const slow = Array.from({ length: 40 }, () => write(1.5));
    expect(slow.filter(Boolean)).toHaveLength(10);
    expect(slow.slice(0, 4)).toEqual([false, false, false, true]);
    // Fast again: the probes bring the average down (a disk slow for long takes eight of them),
    // then every write is inline.
    const recovering = Array.from({ length: 40 }, () => write(0.02));
    expect(recovering.lastIndexOf(false)).toBeGreaterThan(20);
    expect(recovering.slice(recovering.lastIndexOf(false) + 1).length).toBeGreaterThan(4);
    // A single stall of 30 ms counts as five budgets: the pool until the next probe, not longer.
    expect(write(30)).toBe(true);
    const after = Array.from({ length: 8 }, () => write(0.02));
    expect(after).toEqual([false, false, false, true, true, true, true, true]);
    // Slow again, while a write runs on the pool: no probe (the pool's system time would count
    // as the probe's), and an inline write then is not weighed; the probe comes once it is done.
    write(30);
    let done!: () => void;
    const pooled = gate.pooled(() => new Promise<void>((resolve) => (done = resolve)));
    expect(Array.from({ length: 8 }, () => write(0.02))).toEqual(Array(8).fill(false));
    done();
    await pooled;
    expect(write(0.02)).toBe(true);
  });

  it("when a run is canceled before its small output is written, then the put rejects with the reason and no file appears", async () => {
    const abort = new AbortController();
    abort.abort(new Error("canceled"));
    await expect(store.put(`${TOKEN_A}/0.png`, Buffer.from("a"), abort.signal)).rejects.toThrow("canceled");
    expect(await store.read(`${TOKEN_A}/0.png`, {})).toBeNull();
  });

  it("when a stream fails halfway, then no file is left where the API would serve it", async () => {
    let sent = 0;
    const failing = new Readable({
      read() {
        if (sent++ < 2) this.push(Buffer.alloc(1024));
        else this.destroy(new Error("broken"));
      },
    });
    await expect(store.put(`${TOKEN_A}/0.png`, failing)).rejects.toThrow("broken");
    expect(await readdir(dir, { recursive: true })).not.toContainEqual(expect.stringContaining(TOKEN_A));
  });

  it("when a run's outputs are written, then no directory is made for the run: they share their shard's", async () => {
    await store.put(`${TOKEN_A}/0.png`, Buffer.from("a"));
    await store.put(`${TOKEN_A}/1.png`, Buffer.from("b"));
    const [shard] = await readdir(dir);
    expect(await readdir(join(dir, shard!))).toEqual([`${TOKEN_A}~0.png`, `${TOKEN_A}~1.png`]);
    expect((await store.read(`${TOKEN_A}/1.png`, {}))?.headers["Content-Length"]).toBe("1");
  });

  it("when a token's files are all older than the retention, then they go and a marker stays; one recent file keeps them", async () => {
    await store.put(`${TOKEN_A}/0.png`, Buffer.from("a"));
    await store.put(`${TOKEN_B}/0.png`, Buffer.from("b"));
    await store.put(`${TOKEN_B}/1.png`, Buffer.from("b"));
    const old = new Date(Date.now() - 3 * DAY);
    for (const key of [`${TOKEN_A}/0.png`, `${TOKEN_B}/0.png`]) await utimes(localPath(dir, key), old, old);
    expect(await store.expire(new Date(Date.now() - DAY))).toBe(1);
    expect(await store.isExpired(TOKEN_A)).toBe(true);
    expect(await store.isExpired(TOKEN_B)).toBe(false);
    expect(await store.read(`${TOKEN_A}/0.png`, {})).toBeNull();
    expect(await store.read(`${TOKEN_B}/0.png`, {})).not.toBeNull();
  });

  it("when outputs were written before shards (a directory per token), then they are still read, removed and expired", async () => {
    const legacy = join(dir, TOKEN_A);
    await mkdir(legacy);
    await writeFile(join(legacy, "0.png"), "old");
    expect(String(await text((await store.read(`${TOKEN_A}/0.png`, {}))?.body))).toBe("old");
    const old = new Date(Date.now() - 3 * DAY);
    await utimes(legacy, old, old);
    expect(await store.expire(new Date(Date.now() - DAY))).toBe(1);
    expect(await store.isExpired(TOKEN_A)).toBe(true);
    expect(await readdir(legacy)).toEqual([".expired"]);
  });

  it("when signed URLs are asked of a local store, then that is refused", () => {
    expect(() => outputUrls(store, { mode: "signed", ttlSeconds: 60, publicBaseUrl: "http://x" })).toThrow(
      /S3 store/,
    );
  });
});
