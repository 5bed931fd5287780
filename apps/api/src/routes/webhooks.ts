import { z } from "zod";
import { ApiError, EVENT_TYPES, knownEvents, presentDelivery, presentEndpoint } from "@svc/core";
import {
  deleteEndpoint,
  enableEndpoint,
  findEndpoint,
  listDeliveries,
  listEndpoints,
  redeliverOne,
  registerEndpoint,
  rotateSigningSecret,
  sendTestEvent,
  setEndpointEvents,
  type EndpointDeps,
} from "@svc/use-cases";
import { ownerOf } from "../auth/authenticate.js";
import { route, type Guard, type Route, type RouteContext } from "../http/route.js";
import * as R from "../openapi/responses.js";
import { cursorSchema, paginate } from "../http/cursor.js";
import { pageLimit } from "../http/validate.js";
import { checkWebhookUrl } from "../webhooks/checkUrl.js";
import { defaultSigningSecret, secretsKey } from "../secrets.js";

const SECRET_MESSAGE =
  "Store the signing_secret securely: it is returned only once and cannot be retrieved again.";

const events = z
  .array(z.enum(EVENT_TYPES, `expected one of ${EVENT_TYPES.join(", ")}`))
  .min(1, "expected at least one event")
  .refine((list) => new Set(list).size === list.length, "events must not repeat");

const createWebhookBody = z.strictObject({
  url: z.url({ protocol: /^https$/, error: "expected an https:// URL" }).max(2048),
  events: events.optional(),
});

const updateWebhookBody = z.strictObject({ events });

const deliveriesQuery = z.object({
  limit: pageLimit,
  cursor: cursorSchema,
});

const notFound = (id: string) =>
  new ApiError("WEBHOOK_NOT_FOUND", `No webhook endpoint with id ${JSON.stringify(id)}.`);

const webhookId = z.string().meta({ example: "wh_2kdpCM5tfN6vjSuI1aG2v2" });
const byId = z.object({ webhookId });
const owner = ({ res }: RouteContext) => ownerOf(res);
const endpointOr404 = async (ctx: RouteContext, id: string) =>
  (await findEndpoint(ctx.deps.db, owner(ctx), id)) ?? Promise.reject(notFound(id));
const endpointDeps = ({ deps }: RouteContext): EndpointDeps => ({ ...deps, secretsKey: secretsKey(deps) });
const context = ({ res }: RouteContext) => ({ request_id: res.locals.requestId as string });

const tags = ["Webhooks"];
// Endpoints and their secrets are credentials: where a person calls (the console), owners change
// them and read the default secret; members may look at the rest.
/** An operation on one endpoint, by its id (404 when it is not the caller's). */
const byEndpoint = { tags, params: byId, errors: [404] };
const owners: Guard[] = ["owners"];
/** … that changes it. */
const changesEndpoint = { ...byEndpoint, guards: owners };

const createWebhook = route({
  method: "post",
  path: "/webhooks",
  tags,
  summary: "Register a webhook endpoint",
  body: {
    schema: createWebhookBody,
    example: { url: "https://example.com/hooks", events: ["run.completed", "run.failed"] },
  },
  guards: owners,
  reply: {
    status: 201,
    schema: R.WebhookCreated,
    description: "The endpoint and its signing secret, shown only now",
  },
  async handler({ body }, ctx) {
    const { settings } = ctx.deps;
    await checkWebhookUrl(body.url, "url", settings.WEBHOOK_ALLOW_PRIVATE_URLS);
    const made = await registerEndpoint(endpointDeps(ctx), owner(ctx), body, settings.WEBHOOK_ENDPOINTS_MAX);
    if (!made)
      throw new ApiError("VALIDATION_ERROR", "Too many webhook endpoints.", [
        {
          path: "url",
          message: `this account already has the most endpoints allowed in ${owner(ctx).mode} mode (${settings.WEBHOOK_ENDPOINTS_MAX}); delete one first`,
        },
      ]);
    const { endpoint, secret } = made;
    return {
      data: {
        id: endpoint.id,
        url: endpoint.url,
        events: knownEvents(endpoint.events),
        signing_secret: secret,
      },
      message: SECRET_MESSAGE,
    };
  },
});

const listWebhooks = route({
  method: "get",
  path: "/webhooks",
  tags,
  summary: "List webhook endpoints",
  reply: { status: 200, schema: R.WebhookList, description: "The caller's endpoints (never their secrets)" },
  async handler(_input, ctx) {
    const endpoints = await listEndpoints(ctx.deps.db, owner(ctx));
    return { data: { webhooks: endpoints.map(presentEndpoint), total: endpoints.length } };
  },
});

// Declared before /webhooks/{webhookId} so that "default" is never taken for an id.
const defaultSecret = route({
  method: "get",
  path: "/webhooks/default/secret",
  tags,
  summary: "Signing secret of per-run webhook_url deliveries",
  guards: owners,
  reply: { status: 200, schema: R.DefaultSecret, description: "The account's default secret for this mode" },
  async handler(_input, ctx) {
    return { data: { signing_secret: await defaultSigningSecret(ctx) } };
  },
});

const readWebhook = route({
  method: "get",
  path: "/webhooks/{webhookId}",
  summary: "Read a webhook endpoint",
  ...byEndpoint,
  reply: { status: 200, schema: R.WebhookResponse, description: "The endpoint" },
  async handler({ params }, ctx) {
    return { data: presentEndpoint(await endpointOr404(ctx, params.webhookId)) };
  },
});

const updateWebhook = route({
  method: "patch",
  path: "/webhooks/{webhookId}",
  summary: "Change the events an endpoint subscribes to",
  ...changesEndpoint,
  body: { schema: updateWebhookBody, example: { events: ["run.completed"] } },
  reply: { status: 200, schema: R.WebhookResponse, description: "The endpoint" },
  async handler({ params: { webhookId: id }, body }, ctx) {
    const endpoint = await setEndpointEvents(ctx.deps.db, owner(ctx), id, body.events);
    if (!endpoint) throw notFound(id);
    return { data: presentEndpoint(endpoint) };
  },
});

const deleteWebhook = route({
  method: "delete",
  path: "/webhooks/{webhookId}",
  summary: "Delete a webhook endpoint",
  ...changesEndpoint,
  reply: { status: 200, schema: R.WebhookDeleted, description: "Deleted" },
  async handler({ params: { webhookId: id } }, ctx) {
    if (!(await deleteEndpoint(ctx.deps.db, owner(ctx), id))) throw notFound(id);
    return { data: { id, deleted: true as const } };
  },
});

const enableWebhook = route({
  method: "post",
  path: "/webhooks/{webhookId}/enable",
  summary: "Re-enable a disabled endpoint (resets its failure count)",
  ...changesEndpoint,
  reply: { status: 200, schema: R.WebhookResponse, description: "The endpoint, active" },
  async handler({ params: { webhookId: id } }, ctx) {
    const endpoint = await enableEndpoint(ctx.deps.db, owner(ctx), id);
    if (!endpoint) throw notFound(id);
    return { data: presentEndpoint(endpoint) };
  },
});

const rotateSecret = route({
  method: "post",
  path: "/webhooks/{webhookId}/rotate-secret",
  summary: "Rotate the signing secret (the previous one signs alongside for 24 h)",
  ...changesEndpoint,
  reply: { status: 200, schema: R.SecretRotated, description: "The new secret, shown only now" },
  async handler({ params: { webhookId: id } }, ctx) {
    const rotated = await rotateSigningSecret(endpointDeps(ctx), owner(ctx), id);
    if (!rotated) throw notFound(id);
    const { secret, until } = rotated;
    return {
      data: { id, signing_secret: secret, previous_secret_expires_at: until.toISOString() },
      message: `${SECRET_MESSAGE} The previous secret keeps signing alongside until previous_secret_expires_at.`,
    };
  },
});

const listDeliveriesRoute = route({
  method: "get",
  path: "/webhooks/{webhookId}/deliveries",
  summary: "Delivery log of an endpoint, newest first, with every attempt",
  ...byEndpoint,
  query: deliveriesQuery,
  reply: { status: 200, schema: R.DeliveryList, description: "A page of deliveries" },
  async handler({ params: { webhookId: id }, query }, ctx) {
    await endpointOr404(ctx, id);
    const items = await listDeliveries(ctx.deps.db, owner(ctx), id, query.limit + 1, query.cursor);
    const { page, nextCursor } = paginate(items, query.limit);
    return { data: { deliveries: page.map(presentDelivery), next_cursor: nextCursor } };
  },
});

const redeliverRoute = route({
  method: "post",
  path: "/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
  summary: "Send a delivery again (same body, new delivery id)",
  ...changesEndpoint,
  params: z.object({ webhookId, deliveryId: z.string() }),
  reply: { status: 202, schema: R.Redelivered, description: "Queued" },
  async handler({ params: { webhookId: id, deliveryId } }, ctx) {
    await endpointOr404(ctx, id);
    const redelivery = await redeliverOne(endpointDeps(ctx), owner(ctx), id, deliveryId, context(ctx));
    if (!redelivery)
      throw new ApiError("NOT_FOUND", `No delivery ${JSON.stringify(deliveryId)} for this endpoint.`);
    return { data: { delivery_id: redelivery, redelivery_of: deliveryId } };
  },
});

const testWebhook = route({
  method: "post",
  path: "/webhooks/{webhookId}/test",
  summary: "Send a signed webhook.test event",
  ...changesEndpoint,
  reply: { status: 202, schema: R.TestQueued, description: "Queued" },
  async handler({ params: { webhookId: id } }, ctx) {
    const endpoint = await endpointOr404(ctx, id);
    const delivery = await sendTestEvent(endpointDeps(ctx), endpoint, context(ctx));
    return { data: { delivery_id: delivery, event: "webhook.test" as const } };
  },
});

export const webhookRoutes: Route[] = [
  createWebhook,
  listWebhooks,
  defaultSecret,
  updateWebhook,
  readWebhook,
  deleteWebhook,
  enableWebhook,
  rotateSecret,
  listDeliveriesRoute,
  redeliverRoute,
  testWebhook,
];
