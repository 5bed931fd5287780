import { openAIServerBody, openAIServerRunnerSchema } from "./openaiServer.js";
import { runnerSchema } from "./runnerKinds.js";
import { traitsOf } from "./runnerKinds.js";

describe("OpenAI-style media servers", () => {
  it("when an image run is sent, then its fields become OpenAI's (size in pixels, n, b64_json) and the rest passes", () => {
    expect(
      openAIServerBody(
        { api: "images", model: "Qwen/Qwen-Image" },
        { prompt: "a fox", num_images: 2, image_size: "portrait_16_9", seed: 7 },
      ),
    ).toEqual({
      model: "Qwen/Qwen-Image",
      prompt: "a fox",
      n: 2,
      size: "576x1024",
      response_format: "b64_json",
      seed: 7,
    });
  });

  it("when a video or speech run is sent, then seconds, size, input and response_format are OpenAI's; file fields are left to the form", () => {
    expect(
      openAIServerBody(
        { api: "videos", model: "wan" },
        {
          prompt: "waves",
          duration_seconds: 4,
          video_size: "landscape_16_9",
          first_frame: "https://x/f.png",
        },
        ["first_frame"],
      ),
    ).toEqual({ model: "wan", prompt: "waves", seconds: "4", size: "320x180" });
    expect(openAIServerBody({ api: "speech", model: "kokoro" }, { prompt: "hello", format: "wav" })).toEqual({
      model: "kokoro",
      input: "hello",
      voice: "alloy",
      response_format: "wav",
    });
  });

  it("when a catalogue entry names an OpenAI-style server, then it is a pool of servers whose output follows its API", () => {
    const settings = openAIServerRunnerSchema.parse({
      kind: "openai",
      servers: ["http://gpu-1:8000"],
      model: "m",
      api: "videos",
    });
    expect(runnerSchema.parse(settings)).toEqual(settings);
    expect(traitsOf(settings)).toMatchObject({
      pool: { kind: "servers", servers: ["http://gpu-1:8000"], concurrency: 1 },
      output: "video",
      files: "urls",
      weights: "urls",
      costsCompute: true,
    });
    expect(traitsOf({ ...settings, api: "images" }).files).toBe("ids");
    expect(
      openAIServerRunnerSchema.safeParse({
        kind: "openai",
        servers: ["http://169.254.169.254"],
        model: "m",
        api: "images",
      }).success,
    ).toBe(false);
  });
});
