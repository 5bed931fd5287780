import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

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
