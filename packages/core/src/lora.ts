// LoRAs in a run (issue #60): a model declares that it takes them in its input schema's `loras`
// field (how many: maxItems; the scale's range: items.scale's bounds; the base family it accepts:
// x-lora-family; for a model that applies them itself, the layers a LoRA may address:
// x-lora-targets, each tensor's shape with "r" for the rank). A run's LoRAs are checked against
// that declaration when the run is made: a problem is a 400 naming `input.loras[i]`.

/** A layer a LoRA may change, as a model's schema lists it (kohya's conv shapes). */
export interface LoraTarget {
  name: string;
  /** `<name>.lora_down.weight`: [r, in, kh, kw]. */
  down: (number | "r")[];
  /** `<name>.lora_up.weight`: [out, r, 1, 1]. */
  up: (number | "r")[];
}

/** What a model's `loras` field declares. */
export interface LoraField {
  max: number;
  scale: { min: number; max: number; default: number };
  /** The base family its weights must be of, when their metadata names one. */
  family?: string;
  /** The layers it may change (a model that applies LoRAs itself); none: the server checks them. */
  targets?: LoraTarget[];
}

type Schema = Record<string, unknown>;

/** The `loras` field of a model's input schema, or null when the model takes none. */
export function loraFieldOf(inputSchema: unknown): LoraField | null {
  const field = ((inputSchema as Schema | null)?.properties as Schema | undefined)?.loras as
    Schema | undefined;
  if (!field || field.type !== "array") return null;
  const scale = ((field.items as Schema | undefined)?.properties as Schema | undefined)?.scale as
    Schema | undefined;
  return {
    max: typeof field.maxItems === "number" ? field.maxItems : 1,
    scale: {
      min: typeof scale?.minimum === "number" ? scale.minimum : -Infinity,
      max: typeof scale?.maximum === "number" ? scale.maximum : Infinity,
      default: typeof scale?.default === "number" ? scale.default : 1,
    },
    ...(typeof field["x-lora-family"] === "string" && { family: field["x-lora-family"] }),
    ...(Array.isArray(field["x-lora-targets"]) && { targets: field["x-lora-targets"] as LoraTarget[] }),
  };
}

/** A tensor as weights record it (their header without byte ranges). */
export interface TensorShape {
  name: string;
  dtype: string;
  shape: number[];
}

/** The dtypes a model that applies LoRAs itself reads. */
export const LORA_DTYPES = ["F32", "F16", "BF16"];

const sameShape = (declared: (number | "r")[], actual: number[], rank: number) =>
  declared.length === actual.length && declared.every((d, i) => (d === "r" ? rank : d) === actual[i]);

/**
 * Why weights do not fit a model's targets (their first problem), or null when every tensor is a
 * target's down, up or alpha of the right shape and dtype, and every target has both or neither.
 */
export function loraMismatch(tensors: readonly TensorShape[], targets: readonly LoraTarget[]): string | null {
  const byName = new Map(targets.map((t) => [t.name, t]));
  const seen = new Map<string, { down?: number[]; up?: number[] }>();
  for (const t of tensors) {
    const match = /^(.*)\.(lora_down\.weight|lora_up\.weight|alpha)$/.exec(t.name);
    const target = match && byName.get(match[1]!);
    if (!match || !target) return `the tensor ${t.name} names no layer this model has`;
    if (!LORA_DTYPES.includes(t.dtype))
      return `the tensor ${t.name} is ${t.dtype}; this model reads ${LORA_DTYPES.join(", ")}`;
    const part = match[2]!;
    const entry = seen.get(target.name) ?? {};
    if (part === "alpha") {
      if (t.shape.length > 1 || (t.shape.length === 1 && t.shape[0] !== 1))
        return `${t.name} is not a single number`;
    } else entry[part === "lora_down.weight" ? "down" : "up"] = t.shape;
    seen.set(target.name, entry);
  }
  if (!seen.size) return "the weights change no layer (no lora_down.weight tensor)";
  for (const [name, { down, up }] of seen) {
    const target = byName.get(name)!;
    if (!down || !up) return `${name} needs both lora_down.weight and lora_up.weight`;
    const rank = down[0]!;
    if (!(rank > 0) || !sameShape(target.down, down, rank))
      return `${name}.lora_down.weight is [${down.join(", ")}]; this model takes [${target.down.join(", ")}]`;
    if (!sameShape(target.up, up, rank))
      return `${name}.lora_up.weight is [${up.join(", ")}]; this model takes [${target.up.join(", ")}] with r = ${rank}`;
  }
  return null;
}
