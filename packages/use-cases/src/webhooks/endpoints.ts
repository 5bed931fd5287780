// A webhook endpoint's life for its owner: registered with a new signing secret (sealed, shown
// once, within the account's cap per mode), its secret rotated (the previous one signs alongside
// for a day), its deliveries sent again or a test event sent. Reads and changes with no rule of
// their own are the repository's, exported here so that callers need nothing else.
import { DEFAULT_EVENTS, generateSigningSecret, openSecret, sealSecret, type EventType } from "@svc/core";
import {
  createEndpoint,
  createTestDelivery,
  defaultSecretEnc,
  redeliver,
  rotateEndpointSecret,
  type Db,
  type Owner,
} from "@svc/db";
import type { Logger } from "@svc/logger";
import type { Producer } from "@svc/queue";
import { sendDeliveries } from "./sendDeliveries.js";

export {
  deleteEndpoint,
  enableEndpoint,
  findEndpoint,
  listDeliveries,
  listEndpoints,
  setEndpointEvents,
} from "@svc/db";

/** How long a rotated-out secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface EndpointDeps {
  db: Db;
  /** SECRETS_KEY: seals the signing secrets. */
  secretsKey: Buffer;
  queues: Pick<Producer, "enqueueDeliveries">;
  logger: Logger;
}

/** A new endpoint and its signing secret (the only time it is shown); null at the account's cap. */
export async function registerEndpoint(
  deps: EndpointDeps,
  owner: Owner,
  endpoint: { url: string; events?: readonly EventType[] },
  max: number,
) {
  const secret = generateSigningSecret();
  const made = await createEndpoint(
    deps.db,
    owner,
    {
      url: endpoint.url,
      events: endpoint.events ?? DEFAULT_EVENTS,
      secretEnc: sealSecret(deps.secretsKey, secret),
    },
    max,
  );
  return made && { endpoint: made, secret };
}

/** The endpoint's new secret and until when the previous one still signs; null when it is not the owner's. */
export async function rotateSigningSecret(deps: EndpointDeps, owner: Owner, id: string) {
  const secret = generateSigningSecret();
  const until = new Date(Date.now() + ROTATION_OVERLAP_MS);
  const rotated = await rotateEndpointSecret(deps.db, owner, id, sealSecret(deps.secretsKey, secret), until);
  return rotated ? { secret, until } : null;
}

/** The account's signing secret of per-run webhook_url deliveries in a mode, made on first use. */
export async function defaultSigningSecret(deps: Pick<EndpointDeps, "db" | "secretsKey">, owner: Owner) {
  const sealed = await defaultSecretEnc(deps.db, owner, () =>
    sealSecret(deps.secretsKey, generateSigningSecret()),
  );
  return openSecret(deps.secretsKey, sealed);
}

/** A delivery sent again (same body, a new delivery id); null when there is no such delivery. */
export async function redeliverOne(
  deps: EndpointDeps,
  owner: Owner,
  endpointId: string,
  deliveryId: string,
  context: Record<string, string>,
) {
  const redelivery = await redeliver(deps.db, owner, endpointId, deliveryId);
  if (redelivery) await sendDeliveries(deps, [redelivery], context);
  return redelivery;
}

/** A signed webhook.test event sent to the endpoint; its delivery's id. */
export async function sendTestEvent(
  deps: EndpointDeps,
  endpoint: Parameters<typeof createTestDelivery>[1],
  context: Record<string, string>,
) {
  const delivery = await createTestDelivery(deps.db, endpoint);
  await sendDeliveries(deps, [delivery], context);
  return delivery;
}
