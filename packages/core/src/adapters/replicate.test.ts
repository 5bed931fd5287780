import {
  lorasFromReplicate,
  modelOfVersion,
  predictionOutput,
  presentPrediction,
  replicateInputSchema,
  splitModelId,
  webhookFilterOf,
} from "./replicate.js";
import type { RunRecord } from "../runs.js";

const run = (over: Partial<RunRecord> = {}): RunRecord & { input: unknown } => ({
  id: "run_1",
  status: "COMPLETED",
  modelId: "acme/pixel/fast",
  mode: "live",
  estimatedTokens: 4,
  tokensCharged: 4,
  output: { images: ["https://svc/files/a.png", "https://svc/files/b.png"] },
  errorCode: null,
  errorMessage: null,
  createdAt: new Date("2026-11-27T10:00:00.000Z"),
  startedAt: new Date("2026-11-27T10:00:01.000Z"),
  completedAt: new Date("2026-11-27T10:00:03.500Z"),
  canceledAt: null,
  input: { prompt: "p" },
  ...over,
});

describe("Replicate's view of runs", () => {
  it("when a run is shown as a prediction, then its status, output, timings and charge are Replicate's fields", () => {
    const p = presentPrediction(run(), "https://svc/replicate/v1");
    expect(p).toMatchObject({
      id: "run_1",
      model: "acme/pixel/fast",
      version: "acme/pixel/fast",
      status: "succeeded",
      output: ["https://svc/files/a.png", "https://svc/files/b.png"],
      error: null,
      urls: {
        get: "https://svc/replicate/v1/predictions/run_1",
        cancel: "https://svc/replicate/v1/predictions/run_1/cancel",
      },
      metrics: { predict_time: 2.5, total_time: 3.5, tokens_charged: 4 },
    });
    expect(
      presentPrediction(
        run({ status: "QUEUED", startedAt: null, completedAt: null, tokensCharged: null }),
        "b",
      ),
    ).toMatchObject({
      status: "starting",
      output: null,
      metrics: { tokens_charged: null },
    });
    expect(presentPrediction(run({ status: "EXECUTING", completedAt: null }), "b").status).toBe("processing");
    expect(
      presentPrediction(run({ status: "FAILED", errorCode: "MODEL_ERROR", errorMessage: "boom" }), "b"),
    ).toMatchObject({ status: "failed", error: "MODEL_ERROR: boom", output: null });
    expect(
      presentPrediction(run({ status: "CANCELED", completedAt: null, canceledAt: new Date() }), "b").status,
    ).toBe("canceled");
  });

  it("when an output is one field of URLs, then it is that URL or list; any other output is shown whole", () => {
    expect(predictionOutput({ video: "https://x/v.mp4" })).toBe("https://x/v.mp4");
    expect(predictionOutput({ images: ["https://x/1.png"] })).toEqual(["https://x/1.png"]);
    expect(predictionOutput({ echo: { prompt: "hi" } })).toEqual({ echo: { prompt: "hi" } });
    expect(predictionOutput({ a: "https://x", b: "https://y" })).toEqual({ a: "https://x", b: "https://y" });
    expect(predictionOutput({ images: [] })).toEqual({ images: [] });
    expect(predictionOutput(null)).toBeNull();
  });

  it("when Replicate's webhook events are asked for, then start is run.started and the rest are the run's end", () => {
    expect(webhookFilterOf(undefined)).toEqual(["completed", "failed", "canceled"]);
    expect(webhookFilterOf(["start"])).toEqual(["started"]);
    expect(webhookFilterOf(["start", "logs"])).toEqual(["started", "completed", "failed", "canceled"]);
  });

  it("when model ids and versions are read, then owner/name splits at the first slash and a version names its model", () => {
    expect(splitModelId("acme/pixel/fast")).toEqual({ owner: "acme", name: "pixel/fast" });
    expect(modelOfVersion("acme/pixel-hq:abc123")).toBe("acme/pixel-hq");
    expect(modelOfVersion("acme/pixel/fast")).toBe("acme/pixel/fast");
  });

  it("when an input schema is shown, then required fields come first in x-order", () => {
    const shown = replicateInputSchema({
      type: "object",
      properties: { seed: { type: "integer" }, prompt: { type: "string" } },
      required: ["prompt"],
    }) as { properties: Record<string, { "x-order": number; title: string }> };
    expect(shown.properties.prompt).toMatchObject({ "x-order": 0, title: "Prompt" });
    expect(shown.properties.seed).toMatchObject({ "x-order": 1 });
  });
});

describe("Replicate's LoRA inputs", () => {
  it("when a Replicate client gives lora_weights and extra_lora, then they are the run's loras, in order, with their scales", () => {
    expect(
      lorasFromReplicate({
        prompt: "p",
        lora_weights: "wts_a",
        lora_scale: 0.7,
        extra_lora: "https://x/b.safetensors",
      }),
    ).toEqual({
      prompt: "p",
      loras: [{ weights: "wts_a", scale: 0.7 }, { weights: "https://x/b.safetensors" }],
    });
    expect(lorasFromReplicate({ prompt: "p" })).toEqual({ prompt: "p" });
    expect(lorasFromReplicate({ loras: [], lora_weights: "wts_a" })).toEqual({
      loras: [],
      lora_weights: "wts_a",
    });
  });
});
