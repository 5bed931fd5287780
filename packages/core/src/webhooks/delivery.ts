// Delivery rules of the contract: what counts as success, how often to try, when to give up.
import { REFUSED_ADDRESS } from "../addresses.js";
export const DELIVERY_ATTEMPTS = 4; // the first + 3 retries
export const DISABLE_AFTER_FAILED_DELIVERIES = 10;

export function isDeliverySuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** Delay before attempt n+1 after attempt n failed (n = 1, 2, 3): base, 2 base, 4 base. */
export function retryDelay(attemptsMade: number, baseMs: number): number {
  return baseMs * 2 ** (attemptsMade - 1);
}

export const ATTEMPT_ERROR_CLASSES = [
  "timeout",
  "connection",
  "tls",
  "redirect",
  "http_status",
  "refused_address",
] as const;
export type AttemptErrorClass = (typeof ATTEMPT_ERROR_CLASSES)[number];

/** Classifies a transport error (got/Node error codes) for the delivery log. */
export function classifyTransportError(error: { code?: string; name?: string }): AttemptErrorClass {
  const code = error.code ?? "";
  if (error.name === "TimeoutError" || code === "ETIMEDOUT" || /^UND_ERR_\w*TIMEOUT$/.test(code))
    return "timeout";
  if (code === REFUSED_ADDRESS) return "refused_address";
  if (
    /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(code) ||
    /certificate|TLS|SSL/i.test(error.name ?? "")
  )
    return "tls";
  return "connection";
}
