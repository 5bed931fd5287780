// What models make: a leaf module, so that every kind's settings may name it.
export const MODEL_CATEGORIES = ["image", "video", "audio"] as const;
export type ModelCategory = (typeof MODEL_CATEGORIES)[number];
