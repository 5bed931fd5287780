// The contract's error codes and their HTTP statuses (shared/spec/contract.md, "Errors").
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  // Ours: the web console refuses a state-changing request without its CSRF token, or an action
  // the signed-in user's role does not allow.
  FORBIDDEN: 403,
  // Ours: the API key is limited to other models (its allowed_models).
  MODEL_NOT_ALLOWED: 403,
  INSUFFICIENT_TOKENS: 402,
  // Ours: the account could pay, but the API key's spend budget for its period could not.
  KEY_BUDGET_EXCEEDED: 402,
  MODEL_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  // Ours: an input file id that is not the caller's, was deleted or has expired.
  FILE_NOT_FOUND: 404,
  // Ours: weights that are not the caller's, or were deleted.
  WEIGHTS_NOT_FOUND: 404,
  BATCH_NOT_FOUND: 404,
  NOT_FOUND: 404,
  RUN_NOT_CANCELABLE: 409,
  // Our addition to the contract's table: an output file deleted by retention (OUTPUT_RETENTION_DAYS).
  OUTPUT_EXPIRED: 410,
  MODEL_NOT_ACTIVE: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  // Ours: an account holds API_KEYS_PER_MODE_MAX active keys of the mode already.
  KEY_LIMIT_REACHED: 409,
  // Ours: an account holds WEIGHTS_PER_ACCOUNT weights of the mode already.
  WEIGHTS_LIMIT_REACHED: 409,
  // Ours: an operator's import names a model id that exists already (without replace).
  MODEL_EXISTS: 409,
  PAYLOAD_TOO_LARGE: 413,
  // Ours: the account's input files of the key's mode hold FILE_QUOTA_BYTES (or _TEST) already.
  FILE_QUOTA_EXCEEDED: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // Ours: an output file asked for with a Range outside it (Content-Range: bytes */<size>).
  RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMITED: 429,
  // Ours: the account's test runs of compute-costing models for the day are used up (TEST_RUNS_PER_DAY).
  TEST_RUN_QUOTA_EXCEEDED: 429,
  // Ours: as many runs wait for the model as its queue cap allows (models set-queue-cap).
  MODEL_QUEUE_FULL: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  // Ours: a synchronous call of another API style (OpenAI's images, speech) waited
  // SYNC_WAIT_MAX_SECONDS for its run, which was then canceled.
  WAIT_TIMEOUT: 504,
  // Ours: a synchronous call of another API style whose run failed (the message is the run's).
  RUN_FAILED: 502,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_STATUS[code];
  }
}
