import { loraFacts, readSafetensorsHeader, writeSafetensors } from "./safetensors.js";

const f32 = (...values: number[]) => new Uint8Array(new Float32Array(values).buffer);
const lora = () =>
  writeSafetensors(
    [
      { name: "conv1.lora_down.weight", dtype: "F32", shape: [2, 3], data: f32(1, 2, 3, 4, 5, 6) },
      { name: "conv1.lora_up.weight", dtype: "F32", shape: [3, 2], data: f32(1, 2, 3, 4, 5, 6) },
      { name: "conv1.alpha", dtype: "F32", shape: [], data: f32(2) },
    ],
    { ss_base_model_version: "sdxl_base_v1-0" },
  );

/** A file whose header JSON is `json`, followed by `data`. */
const raw = (json: string, data = Buffer.alloc(0)) => {
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([length, Buffer.from(json), data]);
};

describe("safetensors headers", () => {
  it("when a LoRA's header is read, then its tensors, rank, layers and base are known", () => {
    const read = readSafetensorsHeader(lora());
    if (read.kind !== "ok") throw new Error(JSON.stringify(read));
    expect(read.header.dataBytes).toBe(52);
    expect(read.header.headerBytes + read.header.dataBytes).toBe(lora().length);
    expect(loraFacts(read.header)).toEqual({
      tensorCount: 3,
      rank: 2,
      layers: ["conv1"],
      baseHints: ["sdxl_base_v1-0"],
    });
  });

  it("when too little of the start is given, then it says how much is needed", () => {
    const file = lora();
    expect(readSafetensorsHeader(file.subarray(0, 4))).toEqual({ kind: "need", bytes: 8 });
    const read = readSafetensorsHeader(file.subarray(0, 20));
    expect(read.kind).toBe("need");
    expect(readSafetensorsHeader(file.subarray(0, (read as { bytes: number }).bytes)).kind).toBe("ok");
  });

  it.each([
    [
      "a pickle (PyTorch's .pt, .ckpt, .bin)",
      Buffer.from("\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00", "latin1"),
      /header/,
    ],
    ["a header length past 100 MB", Buffer.from([0, 0, 0, 0, 0, 0, 1, 0]), /100 MB/],
    ["a header that is not an object", raw('["a"]'), /start with \{/],
    ["a header that is not JSON", raw("{nope"), /JSON/],
    ["an unknown dtype", raw('{"t":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}}'), /unknown dtype/],
    [
      "bytes that do not match the shape",
      raw('{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}'),
      /do not match/,
    ],
    [
      "overlapping tensors",
      raw(
        '{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}',
      ),
      /overlap/,
    ],
    ["a gap before the first tensor", raw('{"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}'), /gap/],
    [
      "metadata that is not strings",
      raw('{"__metadata__":{"n":1},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}'),
      /not a string/,
    ],
    ["no tensor at all", raw("{}"), /no tensor/],
    ["a negative size", raw('{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}'), /shape/],
  ])("when the file is %s, then it is refused, naming why", (_what, file, why) => {
    const read = readSafetensorsHeader(file);
    expect(read.kind).toBe("refused");
    expect((read as { message: string }).message).toMatch(why);
  });
});
