export { ModelRunClient, type ClientOptions, type RunOptions, type WaitOptions } from "./client.js";
export { ModelRunError, RunFailedError, WebhookVerificationError } from "./errors.js";
export { verifyWebhook, type VerifyOptions } from "./verify.js";
export type * from "./types.js";
