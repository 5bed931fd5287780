import {
  fileFieldsOf,
  namesFiles,
  inputFileKey,
  inputFileSignatureValid,
  parseFileRef,
  signedInputFileUrl,
  sniffFile,
} from "./files.js";

/** A real 3x2 greyscale PNG (what zlib and the PNG chunk layout make of 6 black pixels). */
const PNG_3X2 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAAAAAC4HznGAAAAC0lEQVR4nGNggAAAAAgAAbdYc5UAAAAASUVORK5CYII=",
  "base64",
);

describe("sniffFile", () => {
  it("when the bytes are a PNG, then it is an image of its header's size, whatever it is called", async () => {
    expect(await sniffFile(PNG_3X2)).toEqual({
      ok: true,
      file: { contentType: "image/png", kind: "image", ext: "png", width: 3, height: 2 },
    });
  });

  it("when the bytes are a WAV, then it is audio with no dimensions", async () => {
    const wav = Buffer.alloc(64);
    wav.write("RIFF", 0);
    wav.writeUInt32LE(56, 4);
    wav.write("WAVEfmt ", 8);
    expect(await sniffFile(wav)).toMatchObject({
      ok: true,
      file: { contentType: "audio/wav", kind: "audio" },
    });
  });

  it("when the bytes are text, HTML, a PDF or a zip, then it is refused as unsupported", async () => {
    for (const bytes of [
      Buffer.from("hello"),
      Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'></svg>"),
      Buffer.from("%PDF-1.7\n"),
      Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]),
    ])
      expect(await sniffFile(bytes)).toMatchObject({ ok: false, reason: "unsupported" });
  });

  it("when a PNG's header is cut off, then it is refused as unreadable", async () => {
    expect(await sniffFile(PNG_3X2.subarray(0, 12))).toMatchObject({ ok: false });
  });
});

describe("fileFieldsOf", () => {
  it("when properties are URIs, then they are file fields, narrowed by x-media and limited by x-max-pixels", () => {
    const schema = {
      properties: {
        prompt: { type: "string" },
        image: {
          type: "string",
          format: "uri",
          "x-media": "image",
          "x-max-pixels": 65536,
          "x-content-types": ["image/png", "image/jpeg"],
        },
        clip: { type: "string", format: "uri", "x-media": ["video", "audio", "nonsense"] },
        anything: { type: "string", format: "uri" },
        weighed: { type: "string", format: "uri", "x-media": "audio", "x-max-bytes": 1000 },
      },
    };
    expect(fileFieldsOf(schema)).toEqual([
      // An image of at most 65,536 pixels needs at most 4 bytes a pixel and its headers.
      {
        name: "image",
        kinds: ["image"],
        maxPixels: 65536,
        maxBytes: 65536 * 4 + 256 * 1024,
        types: ["image/png", "image/jpeg"],
      },
      { name: "clip", kinds: ["video", "audio"], maxPixels: null, maxBytes: null, types: null },
      { name: "anything", kinds: ["image", "video", "audio"], maxPixels: null, maxBytes: null, types: null },
      { name: "weighed", kinds: ["audio"], maxPixels: null, maxBytes: 1000, types: null },
    ]);
    expect(fileFieldsOf(null)).toEqual([]);
    expect(fileFieldsOf({ properties: "no" })).toEqual([]);
  });
});

describe("parseFileRef", () => {
  const base = "https://svc.example/api/v1/files";
  const id = "file_0123456789abcdefghijkl";

  it("when the value is an id or our own file URL, then it names that file", () => {
    expect(parseFileRef(id, base, 10)).toEqual({ kind: "id", id });
    expect(parseFileRef(`${base}/${id}`, base, 10)).toEqual({ kind: "id", id });
    expect(parseFileRef(`${base}/${id}/content`, base, 10)).toEqual({ kind: "id", id });
  });

  it("when the value is a base64 data URL within the limit, then it is its bytes", () => {
    expect(parseFileRef("data:image/png;base64,AAEC", base, 10)).toEqual({
      kind: "data",
      bytes: Buffer.from([0, 1, 2]),
    });
  });

  it("when a data URL is too large, not base64, or malformed, then it is refused before decoding", () => {
    expect(parseFileRef(`data:image/png;base64,${"A".repeat(100)}`, base, 10)).toMatchObject({
      kind: "invalid",
      message: expect.stringMatching(/at most 10 bytes/),
    });
    expect(parseFileRef("data:image/png,raw", base, 10)).toMatchObject({ kind: "invalid" });
    expect(parseFileRef("data:image/png;base64,@@@@", base, 10)).toMatchObject({ kind: "invalid" });
  });

  it("when the value is an https URL, then it is fetched; http, credentials and other things are refused", () => {
    expect(parseFileRef("https://example.com/a.png", base, 10)).toEqual({
      kind: "url",
      url: "https://example.com/a.png",
    });
    for (const value of [
      "http://example.com/a.png",
      "https://u:p@example.com/",
      "file:///etc/passwd",
      "x",
      3,
      null,
    ])
      expect(parseFileRef(value, base, 10)).toMatchObject({ kind: "invalid" });
  });
});

describe("signed input file URLs", () => {
  const key = Buffer.alloc(32, 7);
  const file = { id: "file_0123456789abcdefghijkl", contentType: "image/jpeg" };

  it("when a URL is made, then it names the file with its type's extension and its signature checks until it expires", () => {
    const url = new URL(signedInputFileUrl("https://svc.example/", key, file, 2_000));
    expect(url.pathname).toBe(`/files/inputs/${file.id}.jpg`);
    const signature = url.searchParams.get("signature")!;
    expect(inputFileSignatureValid(key, file.id, 2_000, signature, 1_999)).toBe(true);
    expect(inputFileSignatureValid(key, file.id, 2_000, signature, 2_001)).toBe(false);
    expect(inputFileSignatureValid(key, file.id, 2_001, signature, 1_999)).toBe(false);
    expect(inputFileSignatureValid(key, "file_0123456789abcdefghijkm", 2_000, signature, 1_999)).toBe(false);
    expect(inputFileSignatureValid(Buffer.alloc(32, 8), file.id, 2_000, signature, 1_999)).toBe(false);
    expect(inputFileSignatureValid(key, file.id, 2_000, "short", 1_999)).toBe(false);
  });

  it("when a file is stored, then its key is under the dot-directory no public route serves", () => {
    expect(inputFileKey(file.id, file.contentType)).toBe(`.inputs/${file.id}.jpg`);
  });
});

describe("namesFiles", () => {
  it("when an input holds a value shaped like a file id, then it names files; else not", () => {
    expect(namesFiles({ prompt: "p", image: "file_0123456789abcdefghijkl" })).toBe(true);
    expect(namesFiles({ prompt: "file_ is a prefix", n: 2, image: null })).toBe(false);
  });
});
