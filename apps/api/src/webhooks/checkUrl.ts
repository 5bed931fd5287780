import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { ApiError, isInternalAddress } from "@svc/core";

/**
 * Refuses a webhook URL whose host is, or resolves to, an internal address (unless the operator
 * allows private URLs). The worker checks again when it connects, against DNS rebinding. A host
 * that does not resolve gets the same answer as an internal one: telling them apart would let
 * anyone map the internal DNS names the service can see.
 */
export async function checkWebhookUrl(url: string, field: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true }).then(
        (found) => found.map((a) => a.address),
        () => [],
      );
  if (!addresses.length || addresses.some(isInternalAddress)) {
    throw new ApiError("VALIDATION_ERROR", "Invalid webhook URL.", [
      {
        path: field,
        message:
          "the host must resolve to public addresses only (not loopback, private, link-local or internal)",
      },
    ]);
  }
}
