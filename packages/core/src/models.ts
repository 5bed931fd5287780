import type { ModelCategory } from "./catalogue.js";
import { defaultEstimate, type Pricing } from "./pricing.js";
import type { ModelDetailView, ModelView } from "./views.js";

/** A model row as the domain sees it (column names already camel-cased by the data layer). */
export interface ModelRecord {
  id: string;
  name: string;
  description: string;
  category: ModelCategory;
  outputsImage: boolean;
  outputsVideo: boolean;
  outputsAudio: boolean;
  status: string;
  highlighted: boolean;
  inputSchema: unknown;
  pricing: Pricing;
}

export function presentModel(model: ModelRecord): ModelView {
  return {
    id: model.id,
    name: model.name,
    description: model.description,
    category: model.category,
    outputs_image: model.outputsImage,
    outputs_video: model.outputsVideo,
    outputs_audio: model.outputsAudio,
    estimated_tokens: defaultEstimate(model.pricing, model.inputSchema as object),
    status: model.status,
    highlighted: model.highlighted,
  };
}

/** The model's queue now: runs waiting, and the median run time of its recent runs (null: unknown). */
export interface ModelQueue {
  queueLength: number | null;
  runTimeP50Ms: number | null;
  capacity: number | null;
  inFlight: number | null;
}

export function presentModelDetail(
  model: ModelRecord,
  queue: ModelQueue = { queueLength: null, runTimeP50Ms: null, capacity: null, inFlight: null },
  /** BATCH_DISCOUNT_PERCENT: what a batch item saves when the model sets no discount of its own. */
  batchDiscountPercent?: number,
): ModelDetailView {
  const discount = model.pricing.batch_discount_percent ?? batchDiscountPercent;
  const { pricing } = model;
  return {
    ...presentModel(model),
    queue_length: queue.queueLength,
    capacity: queue.capacity,
    in_flight: queue.inFlight,
    run_time_p50_ms: queue.runTimeP50Ms,
    input_schema: model.inputSchema as Record<string, unknown>,
    pricing: {
      unit: pricing.unit,
      tokens_per_unit: pricing.tokens_per_unit,
      units_from: pricing.units_from ?? null,
      description:
        (pricing.units_from
          ? `${pricing.tokens_per_unit} tokens per ${pricing.unit}, units = input.${pricing.units_from}`
          : `${pricing.tokens_per_unit} tokens per run`) +
        (pricing.tokens_per_lora ? `, plus ${pricing.tokens_per_lora} per LoRA the run applies` : "") +
        (discount ? `; ${discount}% off in a batch (rounded up to a whole token)` : ""),
    },
  };
}
