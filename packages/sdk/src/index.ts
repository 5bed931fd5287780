export { ModelRunClient, type ClientOptions, type RunOptions, type WaitOptions } from "./client.js";
export { parseSse, type StreamOptions } from "./stream.js";
export type { FileBody } from "./http.js";
export { ModelRunError, RunFailedError, WebhookVerificationError } from "./errors.js";
export { verifyWebhook, type VerifyOptions } from "./verify.js";
export type * from "./types.js";
export { IMPORT_FORMS, type ImportForm } from "./generated/importForms.js";
