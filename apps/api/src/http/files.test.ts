import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import request from "supertest";
import { startApi, type ApiHarness } from "../test/harness.js";

describe("output files at /files", () => {
  let api: ApiHarness;
  let dir: string;
  const token = "out_0123456789abcdefghijkl";

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-files-"));
    await mkdir(join(dir, token));
    await writeFile(join(dir, token, "0.png"), Buffer.from("89504e470d0a1a0a", "hex"));
    await writeFile(
      join(dir, token, "1.svg"),
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    );
    await writeFile(join(dir, token, "2.html"), "<script>fetch('/api/v1/runs')</script>");
    await writeFile(join(dir, token, "3.bin"), "<html><script>alert(1)</script></html>");
    api = await startApi({ OUTPUT_DIR: dir });
  });
  afterAll(() => api.close());

  it("when a media output is fetched, then it is served inline with its type, nosniff and a CSP that runs nothing", async () => {
    const res = await request(api.app).get(`/files/${token}/0.png`).expect(200);
    expect(res.headers).toMatchObject({
      "content-type": "image/png",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
    });
    expect(res.headers["content-disposition"]).toBeUndefined();
  });

  it("when OUTPUT_DIR is relative (as the default, ./var/outputs), then its files are served", async () => {
    const relativeApi = await startApi({ OUTPUT_DIR: relative(process.cwd(), dir) });
    try {
      const res = await request(relativeApi.app).get(`/files/${token}/0.png`).expect(200);
      expect(res.body).toEqual(Buffer.from("89504e470d0a1a0a", "hex"));
    } finally {
      await relativeApi.close();
    }
  });

  it.each(["1.svg", "2.html", "3.bin"])(
    "when %s, a type outside the allow-list, is fetched, then it is an octet-stream attachment",
    async (name) => {
      const res = await request(api.app).get(`/files/${token}/${name}`).expect(200);
      expect(res.headers).toMatchObject({
        "content-type": "application/octet-stream",
        "content-disposition": "attachment",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
      });
    },
  );
});
