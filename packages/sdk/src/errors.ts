/** An error answer of the API: the contract's code, message, details and request id. */
export class ModelRunError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details?: { path: string; message: string }[],
    /** From Retry-After (429, 503): how long to wait before trying again, in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "ModelRunError";
  }
}

/** The run ended FAILED (from run()). */
export class RunFailedError extends Error {
  constructor(readonly run: { run_id: string; error?: { message: string; code: string } }) {
    super(`run ${run.run_id} failed: ${run.error?.code ?? "UNKNOWN"}: ${run.error?.message ?? ""}`);
    this.name = "RunFailedError";
  }
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}
