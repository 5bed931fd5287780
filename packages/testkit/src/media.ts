import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { renderImage } from "@svc/runners";

export interface ProbedMedia {
  format: string;
  seconds: number;
  streams: { codec: string; type: string; width?: number; height?: number }[];
}

/** What ffprobe (the npm-installed binary) reads in a media file: container, duration, streams. */
export async function probeMedia(bytes: Uint8Array): Promise<ProbedMedia> {
  const ffprobe = (createRequire(import.meta.url)("@ffprobe-installer/ffprobe") as { path: string }).path;
  const dir = await mkdtemp(join(tmpdir(), "svc-probe-"));
  try {
    await writeFile(join(dir, "media"), bytes);
    const { stdout } = await promisify(execFile)(ffprobe, [
      "-v",
      "error",
      "-print_format",
      "json",
      "-show_format",
      "-show_streams",
      join(dir, "media"),
    ]);
    const probed = JSON.parse(stdout) as {
      format: { format_name: string; duration: string };
      streams: { codec_name: string; codec_type: string; width?: number; height?: number }[];
    };
    return {
      format: probed.format.format_name,
      seconds: Number(probed.format.duration),
      streams: probed.streams.map((s) => ({
        codec: s.codec_name,
        type: s.codec_type,
        ...(s.width !== undefined && { width: s.width, height: s.height }),
      })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A real PNG of this size (the built-in image generator's drawing of `seed`). */
export const testPng = (width: number, height: number, seed = "test image") =>
  renderImage(seed, width, height, 0);

/** A real WAV: `samples` of 16-bit mono silence at 8 kHz. */
export function testWav(samples = 800): Buffer {
  const data = samples * 2;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + data, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(data, 40);
  return Buffer.concat([header, Buffer.alloc(data)]);
}

/**
 * A PNG whose header claims `width` x `height` with hardly any data after it: what a "zip bomb"
 * image looks like to whoever reads its header before decoding it.
 */
export function claimedPng(width: number, height: number): Buffer {
  const png = Buffer.from(testPng(8, 8));
  // IHDR's width and height follow the 8-byte signature, the chunk's length and its type.
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  return png;
}
