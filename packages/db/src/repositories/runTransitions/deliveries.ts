// The deliveries of a run event, written once for every statement that records them (a run's
// start, its settlement): one per active endpoint of the run's account and mode subscribed to the
// event, and one to the run's own webhook_url when its filter takes the event.

export interface EventDeliveries {
  /** Rows with id, account_id, mode, webhook_url, webhook_events, as `s`. */
  source: string;
  /** SQL for the event's name. */
  event: string;
  /** SQL for the body sent to endpoint `e`, and to the run's own webhook. */
  endpointBody: string;
  ownBody: string;
  /** SQL for when the event happened. */
  at: string;
  /** SQL that a row of `s` must satisfy. */
  where?: string;
}

/** A SELECT of (id, account_id, mode, run_id, endpoint_id, url, event, body, created_at) to insert. */
export const eventDeliveries = ({
  source,
  event,
  endpointBody,
  ownBody,
  at,
  where = "true",
}: EventDeliveries) => `
  SELECT svc_random_id('whd'), s.account_id, s.mode, s.id, e.id, e.url, ${event}, ${endpointBody}, ${at}
  FROM ${source} s
  JOIN webhook_endpoints e ON e.account_id = s.account_id AND e.mode = s.mode AND e.status = 'active'
                          AND ${event} = ANY(e.events)
  WHERE ${where}
  UNION ALL
  SELECT svc_random_id('whd'), s.account_id, s.mode, s.id, NULL, s.webhook_url, ${event}, ${ownBody}, ${at}
  FROM ${source} s WHERE ${where} AND s.webhook_url IS NOT NULL AND ${event} = ANY(s.webhook_events)`;
