import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { localOutputKeys, localPath, localStore, runOutputs } from "@svc/storage";
import {
  AUDIO_FORMATS,
  createRunners,
  drawFrames,
  IMAGE_SIZES,
  renderGif,
  renderImage,
  renderWav,
  VIDEO_FORMATS,
} from "./index.js";

/** The names of a token's files in a local store's directory. */
const tokenFiles = async (dir: string, token: string) =>
  (await localOutputKeys(dir)).filter((k) => k.startsWith(`${token}/`)).map((k) => k.slice(token.length + 1));

const runners = createRunners();
const runnerFor = runners.for;
afterAll(() => runners.close());
const localStorage = (dir: string, base: string) => runOutputs(localStore(dir), base, Buffer.alloc(32));

/** An MP4's boxes, enough to check it: brand, duration, the video track's size and codec. */
function readMp4(file: Buffer) {
  const boxes = (from: number, to: number) => {
    const out: { type: string; start: number; end: number }[] = [];
    for (let at = from; at + 8 <= to;) {
      const size = file.readUInt32BE(at);
      out.push({ type: file.toString("ascii", at + 4, at + 8), start: at + 8, end: at + size });
      if (size < 8) break;
      at += size;
    }
    return out;
  };
  const find = (path: string[], from = 0, to = file.length): { start: number; end: number } => {
    const [head, ...rest] = path;
    const box = boxes(from, to).find((b) => b.type === head);
    if (!box) throw new Error(`no ${head} box`);
    return rest.length ? find(rest, box.start, box.end) : box;
  };
  const top = boxes(0, file.length).map((b) => b.type);
  const mvhd = find(["moov", "mvhd"]);
  const tkhd = find(["moov", "trak", "tkhd"]);
  const stsd = find(["moov", "trak", "mdia", "minf", "stbl", "stsd"]);
  return {
    top,
    brand: file.toString("ascii", find(["ftyp"]).start, find(["ftyp"]).start + 4),
    seconds: file.readUInt32BE(mvhd.start + 16) / file.readUInt32BE(mvhd.start + 12),
    // tkhd (version 0) ends with width and height as 16.16 fixed point.
    size: [file.readUInt16BE(tkhd.end - 8), file.readUInt16BE(tkhd.end - 4)],
    codec: file.toString("ascii", stsd.start + 12, stsd.start + 16),
  };
}

describe("image generator", () => {
  it("when the presets are read, then they are the interface's sizes", () => {
    expect(IMAGE_SIZES).toEqual({
      square_hd: [1024, 1024],
      landscape_16_9: [1024, 576],
      portrait_16_9: [576, 1024],
      landscape_4_3: [1024, 768],
      portrait_4_3: [768, 1024],
    });
  });

  it("when an image is rendered, then it is a valid PNG of exactly the asked size", () => {
    const png = PNG.sync.read(renderImage("a red fox", 300, 170, 1));
    expect([png.width, png.height]).toEqual([300, 170]);
  });

  it("when the input is the same, then the bytes are the same; another prompt or seed gives another image", () => {
    const a = renderImage("a red fox in snow", 64, 64, 7);
    expect(renderImage("a red fox in snow", 64, 64, 7).equals(a)).toBe(true);
    expect(renderImage("a blue whale", 64, 64, 7).equals(a)).toBe(false);
    expect(renderImage("a red fox in snow", 64, 64, 8).equals(a)).toBe(false);
  });
});

describe("audio and video generators", () => {
  it("when 3 seconds of audio are asked for, then the WAV header says 16 kHz mono and 3 s of samples", () => {
    const wav = renderWav("rain on a roof", 3, 1);
    expect(wav.toString("ascii", 0, 4)).toBe("RIFF");
    expect(wav.toString("ascii", 8, 12)).toBe("WAVE");
    expect(wav.readUInt16LE(22)).toBe(1);
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect(wav.readUInt32LE(40)).toBe(3 * 16000 * 2);
  });

  it("when a 2 s clip at 4 fps is asked for, then the GIF has the size and 8 frames", () => {
    const gif = Buffer.from(
      renderGif({ prompt: "waves", width: 40, height: 30, seconds: 2, fps: 4, seed: 1 }),
    );
    expect(gif.toString("ascii", 0, 6)).toBe("GIF89a");
    expect([gif.readUInt16LE(6), gif.readUInt16LE(8)]).toEqual([40, 30]);
    // Each frame starts with a graphic control extension (0x21 0xF9).
    let frames = 0;
    for (let i = 0; i < gif.length - 1; i++) if (gif[i] === 0x21 && gif[i + 1] === 0xf9) frames++;
    expect(frames).toBe(8);
  });
});

describe("video and audio encoded with ffmpeg", () => {
  it("when the catalogue's built-in models offer formats, then they are the generators' formats", async () => {
    const catalogue = JSON.parse(
      await readFile(new URL("../../../catalogue/models.json", import.meta.url), "utf8"),
    ) as {
      models: {
        runner: { generator?: string };
        input_schema: { properties: { format?: { enum: string[] } } };
      }[];
    };
    const formats = (generator: string) =>
      catalogue.models
        .filter((m) => m.runner.generator === generator)
        .map((m) => m.input_schema.properties.format?.enum);
    expect(formats("video")).toEqual([[...VIDEO_FORMATS]]);
    expect(formats("audio")).toEqual([[...AUDIO_FORMATS]]);
  });

  const settings = { kind: "builtin" as const, generator: "video" as const, delay_ms: 0 };
  const run = async (input: Record<string, unknown>, generator: "video" | "audio" = "video") => {
    const dir = await mkdtemp(join(tmpdir(), "svc-media-"));
    const result = await runnerFor({ ...settings, generator }).run({
      runId: "run_v",
      input,
      settings: { ...settings, generator },
      signal: new AbortController().signal,
      outputs: localStorage(dir, "http://x")("run_test"),
      unitsRequested: 1,
      progress: () => {},
    });
    const url = ((result.output.video ?? result.output.audio) as string[])[0]!;
    const [token, name] = url.split("/").slice(-2);
    return {
      name,
      file: await readFile(localPath(dir, `${token}/${name}`)),
      files: await tokenFiles(dir, token!),
    };
  };

  it("when a video is asked for, then it is an H.264 MP4 of the preset's size and the asked duration, index first", async () => {
    const { name, file, files } = await run({
      prompt: "a ball",
      duration_seconds: 2,
      video_size: "portrait_16_9",
      fps: 12,
    });
    expect(name).toMatch(/^[0-9A-Za-z]{22}-video\.mp4$/);
    expect(files).toEqual([name]);
    const mp4 = readMp4(file);
    expect(mp4).toMatchObject({ brand: "isom", seconds: 2, size: [180, 320], codec: "avc1" });
    // moov before mdat: players start before the whole file has arrived.
    expect(mp4.top.indexOf("moov")).toBeLessThan(mp4.top.indexOf("mdat"));
  });

  it("when the same clip is drawn in pieces, then the frames are those drawn at once", () => {
    const clip = { prompt: "waves", width: 24, height: 16, seconds: 2, fps: 5, seed: 3 };
    const whole = drawFrames(clip, 0, 10);
    const pieces = Buffer.concat([drawFrames(clip, 0, 4), drawFrames(clip, 4, 10)]);
    expect(pieces.equals(Buffer.from(whole))).toBe(true);
  });

  it("when a first frame is given, then the clip starts as that image and gives way to the motion by its middle", () => {
    const red = new PNG({ width: 8, height: 4 });
    for (let i = 0; i < red.data.length; i += 4) red.data.set([255, 0, 0, 255], i);
    const clip = { prompt: "waves", width: 24, height: 16, seconds: 2, fps: 5, seed: 3 };
    const withImage = { ...clip, firstFrame: PNG.sync.write(red) };
    const first = drawFrames(withImage, 0, 1);
    for (let i = 0; i < first.length; i += 4) expect([...first.subarray(i, i + 4)]).toEqual([255, 0, 0, 255]);
    // From the middle on, the frames are the text-to-video ones.
    expect(Buffer.from(drawFrames(withImage, 5, 10)).equals(Buffer.from(drawFrames(clip, 5, 10)))).toBe(true);
    // In between, a blend: neither the image nor the motion alone.
    const blended = drawFrames(withImage, 2, 3);
    expect(Buffer.from(blended).equals(Buffer.from(drawFrames(clip, 2, 3)))).toBe(false);
    expect(blended[0]).toBeGreaterThan(drawFrames(clip, 2, 3)[0]!);
  });

  it("when GIF is asked for, then the clip is an animated GIF", async () => {
    const { name, file } = await run({ prompt: "a ball", duration_seconds: 1, format: "gif" });
    expect(name).toMatch(/-video\.gif$/);
    expect(file.toString("ascii", 0, 6)).toBe("GIF89a");
  });

  it("when MP3 audio is asked for, then the file is MPEG audio", async () => {
    const { name, file } = await run({ prompt: "bells", duration_seconds: 2, format: "mp3" }, "audio");
    expect(name).toMatch(/-audio\.mp3$/);
    // An ID3 tag, or straight into an MPEG audio frame header (11 set bits).
    expect(file.toString("ascii", 0, 3) === "ID3" || (file[0] === 0xff && (file[1]! & 0xe0) === 0xe0)).toBe(
      true,
    );
    expect(file.length).toBeGreaterThan(10_000);
  });

  it("when the ffmpeg binary is missing, then the video run fails and leaves no file", async () => {
    const broken = createRunners({ ffmpegPath: "/nonexistent/ffmpeg" });
    const dir = await mkdtemp(join(tmpdir(), "svc-media-"));
    await expect(
      broken.for(settings).run({
        runId: "run_w",
        input: { prompt: "x", duration_seconds: 1 },
        settings,
        signal: new AbortController().signal,
        outputs: localStorage(dir, "http://x")("run_test"),
        unitsRequested: 1,
        progress: () => {},
      }),
    ).rejects.toThrow(/ENOENT/);
    expect(await readdir(dir)).toEqual([]);
    await broken.close();
  });

  it("when a video run is aborted while encoding, then it rejects with the reason", async () => {
    const controller = new AbortController();
    const running = runnerFor(settings).run({
      runId: "run_z",
      input: { prompt: "long", duration_seconds: 10, fps: 24, video_size: "square" },
      settings,
      signal: controller.signal,
      outputs: localStorage(await mkdtemp(join(tmpdir(), "svc-media-")), "http://x")("run_test"),
      unitsRequested: 10,
      progress: () => {},
    });
    setImmediate(() => controller.abort(new Error("canceled")));
    await expect(running).rejects.toThrow("canceled");
  });
});

describe("built-in runners with local storage", () => {
  it("when two runs store outputs, then each file exists behind its own unguessable URL", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-out-"));
    const storage = localStorage(dir, "http://example.test/");
    const settings = { kind: "builtin" as const, generator: "audio" as const, delay_ms: 0 };
    const reports: unknown[] = [];
    const run = (runId: string) =>
      runnerFor(settings).run({
        runId,
        input: { prompt: "bells", duration_seconds: 2 },
        settings,
        signal: new AbortController().signal,
        outputs: storage("run_test"),
        unitsRequested: 2,
        progress: (report) => reports.push(report),
      });
    const [a, b] = await Promise.all([run("run_a"), run("run_b")]);
    expect(a.output.audio as string[]).toHaveLength(1);
    expect(reports).toEqual([
      { completed: 2, total: 2 },
      { completed: 2, total: 2 },
    ]);
    const [urlA] = a.output.audio as string[];
    const [urlB] = b.output.audio as string[];
    expect(urlA).toMatch(/^http:\/\/example\.test\/files\/out_[0-9A-Za-z]{22}\/[0-9A-Za-z]{22}-audio\.wav$/);
    expect(urlB).not.toBe(urlA);
    const token = urlA!.split("/")[4]!;
    expect(await tokenFiles(dir, token)).toEqual([urlA!.split("/")[5]]);
    expect((await readFile(localPath(dir, `${token}/${urlA!.split("/")[5]}`))).toString("ascii", 0, 4)).toBe(
      "RIFF",
    );
  });

  it("when the signal aborts during the delay, then the runner stops with the abort reason", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const running = runnerFor({ kind: "builtin", generator: "image", delay_ms: 10_000 }).run({
      runId: "run_y",
      input: { prompt: "slow", num_images: 1 },
      settings: { kind: "builtin", generator: "image", delay_ms: 10_000 },
      signal: controller.signal,
      outputs: localStorage(tmpdir(), "http://x")("run_test"),
      unitsRequested: 1,
      progress: () => {},
    });
    controller.abort(new Error("canceled"));
    await expect(running).rejects.toThrow("canceled");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("when an image run makes two images, then it reports each with the images so far", async () => {
    const settings = { kind: "builtin" as const, generator: "image" as const, delay_ms: 0 };
    const reports: { completed?: number; total?: number; output?: unknown }[] = [];
    const result = await runnerFor(settings).run({
      runId: "run_p",
      input: { prompt: "steps", num_images: 2, image_size: "square_hd" },
      settings,
      signal: new AbortController().signal,
      outputs: localStorage(await mkdtemp(join(tmpdir(), "svc-out-")), "http://x")("run_test"),
      unitsRequested: 2,
      progress: (report) => reports.push(report),
    });
    const images = result.output.images as string[];
    expect(reports).toEqual([
      { completed: 1, total: 2, output: { images: [images[0]] } },
      { completed: 2, total: 2, output: { images } },
    ]);
  });
});
