import { OpenAIParamError, inputFromOpenAI, openAIParam, presentVideo } from "./openai.js";

const IMAGE = {
  type: "object",
  properties: {
    prompt: { type: "string" },
    image_size: { type: "string", enum: ["square_hd", "landscape_16_9"] },
    num_images: { type: "integer" },
  },
};
const CLIP = {
  type: "object",
  properties: {
    prompt: { type: "string" },
    first_frame: { type: "string", format: "uri", "x-media": "image" },
    duration_seconds: { type: "integer" },
    video_size: { type: "string", enum: ["landscape_16_9", "square"] },
  },
};
const UPSCALE = {
  type: "object",
  properties: { image: { type: "string", format: "uri", "x-media": "image" } },
};
const TONE = {
  type: "object",
  properties: { prompt: { type: "string" }, format: { type: "string", enum: ["wav", "mp3"] } },
};

const refusal = (schema: object, ask: Parameters<typeof inputFromOpenAI>[1]) => {
  try {
    inputFromOpenAI(schema, ask);
  } catch (error) {
    if (error instanceof OpenAIParamError) return { param: error.param, message: error.message };
  }
  throw new Error("expected a refusal");
};

describe("OpenAI's requests as our models' inputs", () => {
  it("when an image request names a size in pixels, then it becomes the model's preset, and n its num_images", () => {
    const { input, paramOf } = inputFromOpenAI(IMAGE, { prompt: "a fox", n: 2, size: "1024x576" });
    expect(input).toEqual({ prompt: "a fox", num_images: 2, image_size: "landscape_16_9" });
    expect(openAIParam(paramOf, "input.image_size")).toBe("size");
    expect(openAIParam(paramOf, "input.num_images")).toBe("n");
    expect(inputFromOpenAI(IMAGE, { prompt: "a fox", size: "auto" }).input).toEqual({ prompt: "a fox" });
  });

  it("when a request carries our loras field, then a model that takes LoRAs gets them and a refusal of one names loras[i]; another model refuses the field", () => {
    const withLoras = { ...IMAGE, properties: { ...IMAGE.properties, loras: { type: "array" } } };
    const loras = [{ weights: "wts_1", scale: 0.5 }];
    const { input, paramOf } = inputFromOpenAI(withLoras, { prompt: "a fox", loras });
    expect(input).toEqual({ prompt: "a fox", loras });
    expect(openAIParam(paramOf, "input.loras[0]")).toBe("loras[0]");
    expect(refusal(IMAGE, { prompt: "a fox", loras })).toEqual({
      param: "loras",
      message: "This model takes no LoRAs.",
    });
  });

  it("when a size is none of the model's presets, then the refusal names the sizes it has", () => {
    expect(refusal(IMAGE, { prompt: "x", size: "512x512" })).toEqual({
      param: "size",
      message: "size must be one of 1024x1024, 1024x576 (or auto).",
    });
    expect(refusal(UPSCALE, { image: "file_x", size: "10x10" }).param).toBe("size");
    expect(refusal(UPSCALE, { image: "file_x", n: 2 }).param).toBe("n");
  });

  it("when a video request comes, then seconds, size and input_reference go to the clip's fields", () => {
    const { input } = inputFromOpenAI(CLIP, {
      prompt: "waves",
      seconds: "4",
      size: "240x240",
      image: "file_a",
    });
    expect(input).toEqual({
      prompt: "waves",
      duration_seconds: 4,
      video_size: "square",
      first_frame: "file_a",
    });
    expect(refusal(CLIP, { prompt: "waves", seconds: "4.5" }).param).toBe("seconds");
    expect(refusal(IMAGE, { prompt: "x", image: "file_a" })).toMatchObject({ param: "image" });
    // A video's image is its input_reference, and that is what refusals name.
    expect(refusal(IMAGE, { prompt: "x", image: "file_a", imageParam: "input_reference" })).toMatchObject({
      param: "input_reference",
    });
    const { paramOf } = inputFromOpenAI(CLIP, {
      prompt: "w",
      image: "file_a",
      imageParam: "input_reference",
    });
    expect(openAIParam(paramOf, "input.first_frame")).toBe("input_reference");
  });

  it("when an edit goes to a model without a prompt, then the image goes alone; a plain prompt to it is refused", () => {
    expect(inputFromOpenAI(UPSCALE, { prompt: "sharper", image: "file_a" }).input).toEqual({
      image: "file_a",
    });
    expect(refusal(UPSCALE, { prompt: "sharper" }).param).toBe("prompt");
  });

  it("when speech asks for a format, then it must be one of the model's", () => {
    expect(inputFromOpenAI(TONE, { prompt: "sea", responseFormat: "mp3", voice: "alloy" }).input).toEqual({
      prompt: "sea",
      format: "mp3",
    });
    expect(refusal(TONE, { prompt: "sea", responseFormat: "opus" })).toEqual({
      param: "response_format",
      message: "response_format must be one of wav, mp3 for this model.",
    });
  });

  it("when a run is shown as a video, then its status, progress and size are OpenAI's", () => {
    const run = {
      id: "run_1",
      status: "EXECUTING" as const,
      modelId: "acme/motion/clip",
      mode: "live" as const,
      estimatedTokens: 8,
      tokensCharged: null,
      output: null,
      errorCode: null,
      errorMessage: null,
      createdAt: new Date(1_000_000),
      startedAt: new Date(1_001_000),
      completedAt: null,
      canceledAt: null,
      input: { prompt: "waves", duration_seconds: 4, video_size: "landscape_16_9" },
      unitsCompleted: 1,
      unitsRequested: 4,
    };
    expect(presentVideo(run)).toMatchObject({
      status: "in_progress",
      progress: 25,
      seconds: "4",
      size: "320x180",
      created_at: 1000,
      error: null,
    });
    expect(presentVideo({ ...run, status: "CANCELED", canceledAt: new Date(2_000_000) })).toMatchObject({
      status: "failed",
      error: { code: "canceled" },
      completed_at: 2000,
    });
    expect(presentVideo({ ...run, status: "COMPLETED", unitsCompleted: 4 }).progress).toBe(100);
  });
});
