// Safetensors, read as hostile input (personal weights, issue #60): an 8-byte little-endian header
// length, a JSON header naming each tensor's dtype, shape and byte range in the data that follows,
// an optional `__metadata__` of strings. Every number is checked before it is trusted, as the
// reference implementation (huggingface/safetensors) checks it: the header's length and first
// byte, each tensor's range against its dtype and shape, the ranges contiguous from 0 and covering
// the data exactly. Nothing is ever executed: there is no pickle here to run.

/** Bytes per element of each dtype the format defines (sub-byte floats are refused). */
export const SAFETENSORS_DTYPES: Readonly<Record<string, number>> = {
  BOOL: 1,
  U8: 1,
  I8: 1,
  F8_E5M2: 1,
  F8_E4M3: 1,
  F8_E8M0: 1,
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  I64: 8,
  U64: 8,
  F64: 8,
};

/** The reference implementation's limit: a larger header is refused. */
export const SAFETENSORS_HEADER_MAX = 100 * 1024 * 1024;

export interface SafetensorsTensor {
  name: string;
  dtype: string;
  shape: number[];
  /** Its bytes within the data (after the header), [begin, end). */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  /** The 8-byte length and the JSON: where the data starts. */
  headerBytes: number;
  /** What the tensors' ranges cover: the file is headerBytes + dataBytes long. */
  dataBytes: number;
  tensors: SafetensorsTensor[];
  metadata: Record<string, string>;
}

export type HeaderRead =
  | { kind: "ok"; header: SafetensorsHeader }
  /** The head given is too short: this many bytes from the start are needed. */
  | { kind: "need"; bytes: number }
  | { kind: "refused"; message: string };

const refused = (message: string): HeaderRead => ({ kind: "refused", message });

/** One tensor's entry checked: its dtype known, its shape whole numbers, its range its size. */
function tensorOf(name: string, entry: unknown): SafetensorsTensor | string {
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) return `${name}: not a tensor entry`;
  const { dtype, shape, data_offsets: offsets } = entry as Record<string, unknown>;
  if (typeof dtype !== "string" || !(dtype in SAFETENSORS_DTYPES))
    return `${name}: unknown dtype ${String(dtype)}`;
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0))
    return `${name}: the shape is not a list of sizes`;
  if (
    !Array.isArray(offsets) ||
    offsets.length !== 2 ||
    !offsets.every((o) => Number.isSafeInteger(o) && (o as number) >= 0)
  )
    return `${name}: data_offsets is not [begin, end]`;
  const [begin, end] = offsets as [number, number];
  let elements = 1;
  for (const d of shape as number[]) {
    elements *= d;
    if (!Number.isSafeInteger(elements)) return `${name}: the shape is too large`;
  }
  if (end < begin || end - begin !== elements * SAFETENSORS_DTYPES[dtype]!)
    return `${name}: its bytes do not match its dtype and shape`;
  return { name, dtype, shape: shape as number[], begin, end };
}

/** The `__metadata__` entry: strings only. */
function metadataOf(value: unknown): Record<string, string> | string {
  if (value === undefined) return {};
  if (!value || typeof value !== "object" || Array.isArray(value)) return "__metadata__ is not an object";
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([, v]) => typeof v === "string"))
    return "__metadata__ holds a value that is not a string";
  return Object.fromEntries(entries) as Record<string, string>;
}

/**
 * A safetensors file's header from the file's first bytes: "need" when more of the start is
 * needed (the header's length says how much), "refused" naming the first problem.
 */
export function readSafetensorsHeader(head: Uint8Array): HeaderRead {
  if (head.length < 8) return { kind: "need", bytes: 8 };
  const length = Buffer.from(head.buffer, head.byteOffset, 8).readBigUInt64LE(0);
  if (length < 2n) return refused("the header length is too small");
  if (length > BigInt(SAFETENSORS_HEADER_MAX)) return refused("the header is larger than 100 MB");
  const headerBytes = 8 + Number(length);
  if (head.length < headerBytes) return { kind: "need", bytes: headerBytes };
  const text = Buffer.from(head.buffer, head.byteOffset + 8, Number(length)).toString("utf8");
  if (!text.startsWith("{")) return refused("the header does not start with {");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refused("the header is not JSON");
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) return refused("the header is not an object");
  const { __metadata__: rawMetadata, ...entries } = json as Record<string, unknown>;
  const metadata = metadataOf(rawMetadata);
  if (typeof metadata === "string") return refused(metadata);
  const tensors: SafetensorsTensor[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const tensor = tensorOf(name, entry);
    if (typeof tensor === "string") return refused(tensor);
    tensors.push(tensor);
  }
  if (!tensors.length) return refused("the file holds no tensor");
  // Contiguous from 0, no gap, no overlap: every byte of the data belongs to one tensor.
  const sorted = [...tensors].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = 0;
  for (const t of sorted) {
    if (t.begin !== at) return refused(`${t.name}: its bytes overlap another tensor's or leave a gap`);
    at = t.end;
  }
  return { kind: "ok", header: { headerBytes, dataBytes: at, tensors, metadata } };
}

/** What a LoRA's header says of it (kohya names: `<layer>.lora_down.weight`, `<layer>.lora_up.weight`). */
export interface LoraFacts {
  tensorCount: number;
  /** The rank (lora_down's first dimension), when every layer agrees on it; else null. */
  rank: number | null;
  /** The layers it changes. */
  layers: string[];
  /** The base model it was trained on, as its metadata says (kohya's ss_*, modelspec.*). */
  baseHints: string[];
}

const BASE_HINT_KEYS = ["modelspec.architecture", "ss_base_model_version", "ss_sd_model_name", "base_model"];

export function loraFacts(header: SafetensorsHeader): LoraFacts {
  const downs = header.tensors.filter((t) => t.name.endsWith(".lora_down.weight"));
  const ranks = new Set(downs.map((t) => t.shape[0]));
  return {
    tensorCount: header.tensors.length,
    rank: ranks.size === 1 ? [...ranks][0]! : null,
    layers: downs.map((t) => t.name.slice(0, -".lora_down.weight".length)).sort(),
    baseHints: BASE_HINT_KEYS.flatMap((k) => (header.metadata[k] ? [header.metadata[k]!.slice(0, 200)] : [])),
  };
}

/** A safetensors file's bytes from its tensors (tests, and the fakes' weights). */
export function writeSafetensors(
  tensors: { name: string; dtype: string; shape: number[]; data: Uint8Array }[],
  metadata: Record<string, string> = {},
): Buffer {
  let at = 0;
  const header: Record<string, unknown> = Object.keys(metadata).length ? { __metadata__: metadata } : {};
  for (const t of tensors) {
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + t.data.length] };
    at += t.data.length;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, ...tensors.map((t) => Buffer.from(t.data))]);
}
