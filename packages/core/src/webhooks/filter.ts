// What a run's own webhook (webhook_url) receives: the values of webhook_events_filter.

/** What `webhook_events_filter` accepts on creation, and the event each value stands for. */
export const WEBHOOK_FILTER_VALUES = ["started", "completed", "failed", "canceled"] as const;
export type WebhookFilterValue = (typeof WEBHOOK_FILTER_VALUES)[number];
export const webhookFilterEvents = (values: readonly WebhookFilterValue[]) =>
  [...new Set(values)].map((v) => `run.${v}`);
