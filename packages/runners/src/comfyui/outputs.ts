// A ComfyUI run's output files, each fetched with /view and stored once: as its node reports it
// made them (images shown on the run while the prompt goes on), or at the end from the history.
import { comfyHistoryEntrySchema, comfyOutputFiles, type ComfyUISettings } from "@svc/core";
import { RunnerError, type RunContext } from "../runner.js";
import { outputOfKind } from "../outputs.js";
import { callComfy } from "./requests.js";

export type ComfyFile = ReturnType<typeof comfyOutputFiles>[number];

/** Stores files once each (by their place on the server); answers their URLs in order. */
export function outputFiles(ctx: RunContext, s: ComfyUISettings, server: string, maxBytes: number) {
  const stored = new Map<string, Promise<string>>();
  const store = async (f: ComfyFile, name: number) => {
    const query = new URLSearchParams({ filename: f.filename, subfolder: f.subfolder, type: f.type });
    const res = await callComfy(s, server, `view?${query}`, {}, ctx.signal);
    if (!res.ok)
      throw new RunnerError("MODEL_ERROR", `an output could not be fetched from ComfyUI (${res.status})`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length > maxBytes)
      throw new RunnerError("MODEL_ERROR", `a model output is larger than ${maxBytes} bytes`);
    const ext = f.filename.includes(".")
      ? f.filename.slice(f.filename.lastIndexOf(".") + 1).toLowerCase()
      : "bin";
    return ctx.outputs.save(`${name}.${ext}`, bytes, ctx.signal);
  };
  return (files: ComfyFile[]) =>
    Promise.all(
      files.map((f) => {
        const key = `${f.type}/${f.subfolder}/${f.filename}`;
        if (!stored.has(key)) {
          // One that failed is fetched again by the next caller (the end's, at the latest).
          const url = store(f, stored.size);
          stored.set(key, url);
          url.catch(() => stored.delete(key));
        }
        return stored.get(key)!;
      }),
    );
}

/**
 * Images shown as their nodes make them (a unit each, charged if the run is canceled); a video or
 * audio is one piece of the run's seconds, shown at the end. `made` takes a node's output;
 * `shown` settles once what was made is on the run.
 */
export function showAsMade(
  ctx: RunContext,
  s: ComfyUISettings,
  files: ReturnType<typeof outputFiles>,
  freed: () => Promise<unknown> | undefined,
) {
  const made: ComfyFile[] = [];
  let showing = Promise.resolve();
  return {
    made(output: unknown) {
      const parsed = comfyHistoryEntrySchema.safeParse({ outputs: { node: output } });
      if (s.output !== "image" || !parsed.success) return;
      made.push(...comfyOutputFiles(parsed.data));
      const now = [...made];
      showing = showing
        .then(async () => {
          // After the messages that came with it: when they end the prompt, the next one is sent
          // before these files are fetched.
          await new Promise((resolve) => setImmediate(resolve));
          await freed();
          const urls = await files(now);
          ctx.progress({
            completed: urls.length,
            total: Math.max(ctx.unitsRequested, urls.length),
            output: outputOfKind(s.output, urls),
          });
        })
        .catch(() => {});
    },
    shown: () => showing,
  };
}
