import { abortableDelay, type Runner } from "../runner.js";
import { inputSeed, prng, wordColours } from "../random.js";
import { runFfmpeg } from "./ffmpeg.js";
import type { RenderPool } from "./renderPool.js";

const SAMPLE_RATE = 16_000;

/** 16-bit mono PCM WAV: one tone per word of the prompt, in turn, for the requested seconds. */
export function renderWav(prompt: string, seconds: number, seed: number): Buffer {
  const notes = wordColours(prompt).map(([r, g]) => 220 + (((r << 8) | g) % 660));
  const random = prng(seed);
  const samples = SAMPLE_RATE * seconds;
  const noteLength = Math.max(1, Math.floor(SAMPLE_RATE / 4));
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(SAMPLE_RATE, 24);
  wav.writeUInt32LE(SAMPLE_RATE * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples * 2, 40);
  const phase = random() * Math.PI;
  for (let i = 0; i < samples; i++) {
    const freq = notes[Math.floor(i / noteLength) % notes.length]!;
    const envelope = Math.min(1, (i % noteLength) / 200, (noteLength - (i % noteLength)) / 200);
    wav.writeInt16LE(
      Math.round(Math.sin(phase + (2 * Math.PI * freq * i) / SAMPLE_RATE) * 12_000 * envelope),
      44 + i * 2,
    );
  }
  return wav;
}

export const AUDIO_FORMATS = ["wav", "mp3"] as const;

export const audioRunner = (pool: RenderPool, ffmpeg: () => string): Runner => ({
  async run({ input, settings, signal, outputs, progress }) {
    const seconds = Number(input.duration_seconds ?? 5);
    await abortableDelay(settings.kind === "builtin" ? settings.delay_ms : 0, signal);
    const wav = await pool.render(
      { kind: "audio", prompt: String(input.prompt), seconds, seed: inputSeed(input) },
      signal,
    );
    let url: string;
    if (input.format === "mp3") {
      // Encoded as it streams into the store.
      const mp3 = runFfmpeg(
        ffmpeg(),
        ["-f", "wav", "-i", "pipe:0", "-c:a", "libmp3lame", "-b:a", "96k", "-f", "mp3", "pipe:1"],
        (async function* () {
          yield wav;
        })(),
        signal,
      );
      [url] = await Promise.all([outputs.save("audio.mp3", mp3.stdout, signal), mp3.done]);
    } else url = await outputs.save("audio.wav", wav, signal);
    progress({ completed: seconds, total: seconds });
    return { output: { audio: [url] } };
  },
});
