import { Router, type Response } from "express";
import { z } from "zod";
import {
  ApiError,
  DEFAULT_EVENTS,
  EVENT_TYPES,
  generateSigningSecret,
  openSecret,
  parseSecretsKey,
  presentDelivery,
  presentEndpoint,
  sealSecret,
} from "@svc/core";
import {
  createEndpoint,
  createTestDelivery,
  defaultSecretEnc,
  deleteEndpoint,
  enableEndpoint,
  findEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  rotateEndpointSecret,
  setEndpointEvents,
} from "@svc/db";
import { authOf } from "../auth/authenticate.js";
import type { AppDeps } from "../deps.js";
import { cursorSchema, paginate } from "../http/cursor.js";
import { pageLimit, validate } from "../http/validate.js";
import { checkWebhookUrl } from "../webhooks/checkUrl.js";

export const SECRET_MESSAGE =
  "Store the signing_secret securely: it is returned only once and cannot be retrieved again.";
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

const events = z
  .array(z.enum(EVENT_TYPES, `expected one of ${EVENT_TYPES.join(", ")}`))
  .min(1, "expected at least one event")
  .refine((list) => new Set(list).size === list.length, "events must not repeat");

export const createWebhookBody = z.strictObject({
  url: z.url({ protocol: /^https$/, error: "expected an https:// URL" }).max(2048),
  events: events.optional(),
});

export const updateWebhookBody = z.strictObject({ events });

export const deliveriesQuery = z.object({
  limit: pageLimit,
  cursor: cursorSchema,
});

const notFound = (id: string) =>
  new ApiError("WEBHOOK_NOT_FOUND", `No webhook endpoint with id ${JSON.stringify(id)}.`);

export function webhookRoutes({ db, config, queues, logger }: AppDeps): Router {
  const router = Router();
  const key = parseSecretsKey(config.SECRETS_KEY);
  const owner = (res: Response) => ({ accountId: authOf(res).accountId, mode: authOf(res).mode });
  const endpointOr404 = async (res: Response, id: string) =>
    (await findEndpoint(db, owner(res), id)) ?? Promise.reject(notFound(id));
  // Sending is the worker's; a delivery left pending because Redis is down is sent by its sweeper.
  const send = (ids: string[], res: Response) =>
    queues.enqueueDeliveries(ids).catch((error: unknown) =>
      logger.warn("enqueue of deliveries failed; the sweeper will send them", {
        request_id: res.locals.requestId,
        error: (error as Error).message,
      }),
    );

  router.post("/webhooks", async (req, res) => {
    const body = validate(createWebhookBody, req.body ?? {}, "body");
    await checkWebhookUrl(body.url, "url", config.WEBHOOK_ALLOW_PRIVATE_URLS);
    const secret = generateSigningSecret();
    const endpoint = await createEndpoint(
      db,
      owner(res),
      { url: body.url, events: body.events ?? DEFAULT_EVENTS, secretEnc: sealSecret(key, secret) },
      config.WEBHOOK_ENDPOINTS_MAX,
    );
    if (!endpoint)
      throw new ApiError("VALIDATION_ERROR", "Too many webhook endpoints.", [
        {
          path: "url",
          message: `this account already has the most endpoints allowed in ${owner(res).mode} mode (${config.WEBHOOK_ENDPOINTS_MAX}); delete one first`,
        },
      ]);
    res.status(201).json({
      data: { id: endpoint.id, url: endpoint.url, events: endpoint.events, signing_secret: secret },
      message: SECRET_MESSAGE,
    });
  });

  router.get("/webhooks", async (_req, res) => {
    const endpoints = await listEndpoints(db, owner(res));
    res.json({ data: { webhooks: endpoints.map(presentEndpoint), total: endpoints.length } });
  });

  // Registered before /webhooks/:id so that "default" is never taken for an id.
  router.get("/webhooks/default/secret", async (_req, res) => {
    const sealed = await defaultSecretEnc(db, owner(res), () => sealSecret(key, generateSigningSecret()));
    res.json({ data: { signing_secret: openSecret(key, sealed) } });
  });

  router.get("/webhooks/:id", async (req, res) => {
    res.json({ data: presentEndpoint(await endpointOr404(res, req.params.id)) });
  });

  router.patch("/webhooks/:id", async (req, res) => {
    const body = validate(updateWebhookBody, req.body ?? {}, "body");
    const endpoint = await setEndpointEvents(db, owner(res), req.params.id, body.events);
    if (!endpoint) throw notFound(req.params.id);
    res.json({ data: presentEndpoint(endpoint) });
  });

  router.delete("/webhooks/:id", async (req, res) => {
    if (!(await deleteEndpoint(db, owner(res), req.params.id))) throw notFound(req.params.id);
    res.json({ data: { id: req.params.id, deleted: true } });
  });

  router.post("/webhooks/:id/enable", async (req, res) => {
    const endpoint = await enableEndpoint(db, owner(res), req.params.id);
    if (!endpoint) throw notFound(req.params.id);
    res.json({ data: presentEndpoint(endpoint) });
  });

  router.post("/webhooks/:id/rotate-secret", async (req, res) => {
    const secret = generateSigningSecret();
    const until = new Date(Date.now() + ROTATION_OVERLAP_MS);
    if (!(await rotateEndpointSecret(db, owner(res), req.params.id, sealSecret(key, secret), until)))
      throw notFound(req.params.id);
    res.json({
      data: { id: req.params.id, signing_secret: secret, previous_secret_expires_at: until.toISOString() },
      message: `${SECRET_MESSAGE} The previous secret keeps signing alongside until previous_secret_expires_at.`,
    });
  });

  router.get("/webhooks/:id/deliveries", async (req, res) => {
    await endpointOr404(res, req.params.id);
    const query = validate(deliveriesQuery, req.query, "query");
    const items = await listDeliveries(db, owner(res), req.params.id, query.limit + 1, query.cursor);
    const { page, nextCursor } = paginate(items, query.limit);
    res.json({ data: { deliveries: page.map(presentDelivery), next_cursor: nextCursor } });
  });

  router.post("/webhooks/:id/deliveries/:deliveryId/redeliver", async (req, res) => {
    await endpointOr404(res, req.params.id);
    const id = await redeliver(db, owner(res), req.params.id, req.params.deliveryId);
    if (!id)
      throw new ApiError(
        "NOT_FOUND",
        `No delivery ${JSON.stringify(req.params.deliveryId)} for this endpoint.`,
      );
    await send([id], res);
    res.status(202).json({ data: { delivery_id: id, redelivery_of: req.params.deliveryId } });
  });

  router.post("/webhooks/:id/test", async (req, res) => {
    const endpoint = await endpointOr404(res, req.params.id);
    const id = await createTestDelivery(db, endpoint);
    await send([id], res);
    res.status(202).json({ data: { delivery_id: id, event: "webhook.test" } });
  });

  return router;
}
