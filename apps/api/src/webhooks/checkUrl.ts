import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { ApiError, isInternalAddress } from "@svc/core";

/**
 * Refuses a webhook URL whose host is, or resolves to, an internal address (unless the operator
 * allows private URLs). The worker checks again when it connects, against DNS rebinding.
 */
export async function checkWebhookUrl(url: string, field: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw new ApiError("VALIDATION_ERROR", "Invalid webhook URL.", [
        { path: field, message: `host ${host} does not resolve` },
      ]);
    }
  }
  if (addresses.some(isInternalAddress)) {
    throw new ApiError("VALIDATION_ERROR", "Invalid webhook URL.", [
      { path: field, message: "resolves to a loopback, private, link-local or otherwise internal address" },
    ]);
  }
}
