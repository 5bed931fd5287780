// A video on an OpenAI-style server is a job: created (or found again after a worker's crash),
// polled (its progress becomes the run's), its content downloaded; a canceled run's job deleted.
import { request } from "undici";
import { openAIVideoJobSchema, type OpenAIVideoJob } from "@svc/core";
import { abortableDelay, RunnerError, type RunContext, type RunResult } from "../runner.js";
import { outputOfKind } from "../outputs.js";
import { modelServers } from "../servers.js";
import { authorization } from "./health.js";
import type { Answer } from "./requests.js";
import type { OpenAIServerRun } from "./openAIServerRunner.js";

/** The note (RunNotes) that keeps a run's video job: its server and id. */
const VIDEO_NOTE = "openai-video";

const jobOf = async (answer: Answer): Promise<OpenAIVideoJob> => {
  const job = openAIVideoJobSchema.safeParse(await answer.body.json().catch(() => null));
  if (!job.success) throw new RunnerError("MODEL_ERROR", "the model server's answer is not a video job");
  return job.data;
};

/**
 * The video job an earlier attempt of the run created (its worker died), as its server has it
 * now; null when there is none, or the server no longer knows it (it is created again).
 */
async function videoOfEarlierAttempt(run: OpenAIServerRun, ctx: RunContext) {
  const note = await run.deps.notes?.get(ctx.runId, VIDEO_NOTE);
  const known = note ? (JSON.parse(note) as { server?: unknown; id?: unknown }) : {};
  if (
    typeof known.server !== "string" ||
    typeof known.id !== "string" ||
    !run.s.servers.includes(known.server)
  )
    return null;
  try {
    const job = await jobOf(await run.call(known.server, `v1/videos/${encodeURIComponent(known.id)}`, {}));
    return { server: known.server, job };
  } catch (error) {
    if (error instanceof RunnerError) return null;
    throw error;
  }
}

/** The run's job: the one an earlier attempt made, or one made now (and noted for a takeover). */
async function videoJob(run: OpenAIServerRun, ctx: RunContext, slotServer: string) {
  const earlier = ctx.fresh ? null : await videoOfEarlierAttempt(run, ctx);
  if (earlier) {
    run.log("info", "video job re-attached", {
      server: earlier.server,
      job_id: earlier.job.id,
      run_id: ctx.runId,
    });
    return earlier;
  }
  const job = await jobOf(await run.first(slotServer));
  run.log("debug", "video job created", { server: slotServer, job_id: job.id, run_id: ctx.runId });
  // Kept for a worker that takes the run over: it follows this job rather than making another.
  await run.deps.notes
    ?.set(ctx.runId, VIDEO_NOTE, JSON.stringify({ server: slotServer, id: job.id }))
    .catch((error: unknown) =>
      run.log("info", "the video job's id could not be kept", { error: (error as Error).message }),
    );
  return { server: slotServer, job };
}

/** Polls the job until it ends; its progress is the run's. */
async function jobEnd(run: OpenAIServerRun, ctx: RunContext, server: string, job: OpenAIVideoJob) {
  while (job.status === "queued" || job.status === "in_progress") {
    await abortableDelay(run.s.poll_interval_ms, ctx.signal);
    job = await jobOf(await run.call(server, `v1/videos/${encodeURIComponent(job.id)}`, {}));
    if (job.progress !== null && job.progress !== undefined)
      ctx.progress({
        completed: Math.floor((Math.min(100, job.progress) / 100) * ctx.unitsRequested),
        total: ctx.unitsRequested,
      });
  }
  return job;
}

/** A canceled run's job is deleted on its server, which stops the GPU's work on it. */
async function deleteJob(run: OpenAIServerRun, server: string, id: string) {
  await request(new URL(`v1/videos/${encodeURIComponent(id)}`, `${server}/`), {
    dispatcher: modelServers,
    method: "DELETE",
    headers: authorization(run.s, run.deps.secretsKey),
    signal: AbortSignal.timeout(5_000),
  })
    .then((res) => res.body.dump())
    .catch(() => {});
}

export async function video(run: OpenAIServerRun, ctx: RunContext, slotServer: string): Promise<RunResult> {
  const { server, job } = await videoJob(run, ctx, slotServer);
  try {
    const ended = await jobEnd(run, ctx, server, job);
    if (ended.status === "failed")
      throw new RunnerError("MODEL_ERROR", ended.error?.message || "The model server failed the video.");
    const content = await run.call(server, `v1/videos/${encodeURIComponent(job.id)}/content`, {});
    const url = await ctx.outputs.save(
      "video.mp4",
      Buffer.from(await content.body.arrayBuffer()),
      ctx.signal,
    );
    return { output: outputOfKind("video", [url]) };
  } catch (error) {
    if (ctx.signal.aborted) await deleteJob(run, server, job.id);
    throw error;
  }
}
