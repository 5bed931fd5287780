import {
  lorasIn,
  MODEL_PRICE_MAX,
  unitsProduced,
  defaultEstimate,
  runCharge,
  tokensFor,
  unitsDelivered,
  unitsRequested,
  type Pricing,
} from "./pricing.js";

const perImage: Pricing = { unit: "image", tokens_per_unit: 5, units_from: "num_images" };
const perRun: Pricing = { unit: "run", tokens_per_unit: 7 };

describe("pricing", () => {
  it("when 2 images are requested at 5 tokens each, then the estimate is 10", () => {
    expect(tokensFor(perImage, unitsRequested(perImage, { num_images: 2 }))).toBe(10);
  });

  it("when the model is priced per run, then any input costs one unit", () => {
    expect(unitsRequested(perRun, { num_images: 4 })).toBe(1);
  });

  it("when the unit field is fractional, then units round up", () => {
    expect(unitsRequested({ unit: "second", tokens_per_unit: 1, units_from: "d" }, { d: 2.2 })).toBe(3);
  });

  it("when the schema default is 1 image, then the listed estimate is one image's price", () => {
    expect(defaultEstimate(perImage, { properties: { num_images: { type: "integer", default: 1 } } })).toBe(
      5,
    );
    expect(defaultEstimate(perImage, { properties: {} })).toBe(5);
  });

  // Two images asked for at 5 tokens each, reserved.
  const twoImages = { estimatedTokens: 10, unitsRequested: 2, reservedTokens: 10 };

  it("when fewer units were produced than reserved, then only those are charged", () => {
    expect(runCharge(twoImages, 1)).toBe(5);
  });

  it("when the produced units would cost more than the reservation, then the charge is capped", () => {
    expect(runCharge(twoImages, 4)).toBe(10);
  });

  it("when nothing was reserved (test mode), then nothing is charged", () => {
    expect(runCharge({ ...twoImages, reservedTokens: 0 }, 2)).toBe(0);
  });

  it("when the model's price changed after the run was made, then the run is charged at its own price", () => {
    // Made at 5 per image: whatever the catalogue says now, one image delivered costs 5.
    expect(runCharge({ estimatedTokens: 15, unitsRequested: 3, reservedTokens: 15 }, 1)).toBe(5);
  });

  it("when a progress report holds 3 image URLs of 4, then 3 units are delivered", () => {
    const images = [
      "https://svc/files/out_a/0.png",
      "https://svc/files/out_a/1.png",
      "data:image/png;base64,AA",
    ];
    expect(unitsDelivered("image", { images }, 4)).toBe(3);
    expect(unitsDelivered("image", images, 2)).toBe(2);
  });

  it("when a report holds no file, or a video or audio file, then 0 or the whole run is delivered", () => {
    expect(unitsDelivered("image", { images: [] }, 4)).toBe(0);
    expect(unitsDelivered("image", undefined, 4)).toBe(0);
    expect(unitsDelivered("video", "https://cog/outputs/p/video.mp4", 5)).toBe(5);
    expect(unitsDelivered("audio", { text: "not a file" }, 5)).toBe(0);
  });
});

describe("the units a finished run made", () => {
  it("are what its output delivers, decided here for every kind (runners report only outputs)", () => {
    const images = { images: ["https://a/0.png", "https://a/1.png"] };
    expect(unitsProduced("image", images, 4)).toBe(2);
    expect(unitsProduced("image", images, 1)).toBe(1);
    expect(unitsProduced("video", { video: ["https://a/v.mp4"] }, 5)).toBe(5);
    expect(unitsProduced("audio", { audio: [] }, 3)).toBe(0);
    // An output of no files: the run as asked (the echo).
    expect(unitsProduced("echo", { echo: { prompt: "x" } }, 1)).toBe(1);
  });
});

describe("a LoRA surcharge", () => {
  it("when a model sets tokens_per_lora, then each LoRA of a run adds it to every unit's price, within MODEL_PRICE_MAX", () => {
    const pricing = { unit: "image", tokens_per_unit: 3, tokens_per_lora: 2, units_from: "num_images" };
    expect(tokensFor(pricing, 2, lorasIn({ loras: [{}, {}] }))).toBe((3 + 2 * 2) * 2);
    expect(tokensFor(pricing, 2, lorasIn({}))).toBe(6);
    expect(tokensFor({ unit: "image", tokens_per_unit: 5 }, 1, 2)).toBe(5);
    expect(tokensFor({ ...pricing, tokens_per_unit: MODEL_PRICE_MAX }, 1, 3)).toBe(MODEL_PRICE_MAX);
  });
});
