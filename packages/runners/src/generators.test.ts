import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { createRunners, IMAGE_SIZES, localStorage, renderGif, renderImage, renderWav } from "./index.js";

const runnerFor = createRunners().for;

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
    const gif = Buffer.from(renderGif("waves", 40, 30, 2, 4, 1));
    expect(gif.toString("ascii", 0, 6)).toBe("GIF89a");
    expect([gif.readUInt16LE(6), gif.readUInt16LE(8)]).toEqual([40, 30]);
    // Each frame starts with a graphic control extension (0x21 0xF9).
    let frames = 0;
    for (let i = 0; i < gif.length - 1; i++) if (gif[i] === 0x21 && gif[i + 1] === 0xf9) frames++;
    expect(frames).toBe(8);
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
        outputs: storage(),
        unitsRequested: 2,
        progress: (report) => reports.push(report),
      });
    const [a, b] = await Promise.all([run("run_a"), run("run_b")]);
    expect(a.units).toBe(2);
    expect(reports).toEqual([
      { completed: 2, total: 2 },
      { completed: 2, total: 2 },
    ]);
    const [urlA] = a.output.audio as string[];
    const [urlB] = b.output.audio as string[];
    expect(urlA).toMatch(/^http:\/\/example\.test\/files\/out_[0-9A-Za-z]{22}\/audio\.wav$/);
    expect(urlB).not.toBe(urlA);
    const token = urlA!.split("/")[4]!;
    expect(await readdir(join(dir, token))).toEqual(["audio.wav"]);
    expect((await readFile(join(dir, token, "audio.wav"))).toString("ascii", 0, 4)).toBe("RIFF");
  });

  it("when the signal aborts during the delay, then the runner stops with the abort reason", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const running = runnerFor({ kind: "builtin", generator: "image", delay_ms: 10_000 }).run({
      runId: "run_y",
      input: { prompt: "slow", num_images: 1 },
      settings: { kind: "builtin", generator: "image", delay_ms: 10_000 },
      signal: controller.signal,
      outputs: localStorage(tmpdir(), "http://x")(),
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
      outputs: localStorage(await mkdtemp(join(tmpdir(), "svc-out-")), "http://x")(),
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
