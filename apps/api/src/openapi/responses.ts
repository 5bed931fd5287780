import { z } from "zod";
import {
  CancelResultView,
  CreatedRunView,
  DeliveryView,
  EndpointView,
  ERROR_STATUS,
  BUDGET_PERIODS,
  BATCH_STATUSES,
  batchResultLineSchema,
  EVENT_TYPES,
  ModelDetailView,
  ModelView,
  RunView,
  runIdView as runId,
  timestampView as timestamp,
} from "@svc/core";

// The answers' shapes, with their envelopes: what routes declare as their reply (so a handler must
// return one), and the document publishes. Views that presenters in @svc/core make live there.
// The test harness also checks every real response against the document.

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      request_id: z.string(),
    }),
  })
  .meta({
    id: "Error",
    example: {
      error: {
        code: "VALIDATION_ERROR",
        message: "Invalid request query: limit: expected an integer from 1 to 200.",
        details: [{ path: "limit", message: "expected an integer from 1 to 200" }],
        request_id: "req_3RmyhIeXARDIpLowOdbJwH",
      },
    },
  });

export const ModelResponse = z.object({ data: ModelDetailView });
export const ModelList = z.object({
  data: z.object({ models: z.array(ModelView), total: z.number(), limit: z.number(), offset: z.number() }),
});

export const RunCreated = z.object({ data: CreatedRunView }).meta({ id: "RunCreated" });
export const RunResponse = z.object({ data: RunView });
export const RunList = z.object({
  data: z.object({ runs: z.array(RunView), next_cursor: z.string().nullable() }),
});
export const RunProgress = z
  .object({
    run_id: runId,
    at: timestamp,
    completed: z.number().optional(),
    total: z.number().optional(),
    logs: z.string().optional(),
    output: z.unknown().optional(),
  })
  .meta({ description: "data of a progress event of GET /runs/{runId}/events" });

export const RunCanceled = z.object({ data: CancelResultView });

export const FileView = z
  .object({
    id: z.string().meta({ example: "file_5bS2vVd1LnZRvYqNZ3H9aA" }),
    url: z.string().meta({
      description: "GET it with the key (or give it, or the id, as a file input)",
      example: "https://svc.example.com/api/v1/files/file_5bS2vVd1LnZRvYqNZ3H9aA/content",
    }),
    content_type: z.string().meta({ description: "Decided by the file's bytes", example: "image/png" }),
    size: z.number().int(),
    sha256: z.string(),
    width: z.number().int().nullable().meta({ description: "An image's width (null for video and audio)" }),
    height: z.number().int().nullable(),
    created_at: timestamp,
    expires_at: timestamp,
  })
  .meta({ id: "File" });
export const FileResponse = z.object({ data: FileView });
export const FileList = z.object({
  data: z.object({ files: z.array(FileView), next_cursor: z.string().nullable() }),
});
export const FileDeleted = z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) });

export const WeightsView = z
  .object({
    id: z.string().meta({ example: "wts_2kdpCM5tfN6vjSuI1aG2v2" }),
    name: z.string().meta({ example: "our-brand-style" }),
    size: z.number().int(),
    sha256: z.string(),
    tensor_count: z.number().int(),
    rank: z
      .number()
      .int()
      .nullable()
      .meta({ description: "lora_down's first dimension, when every layer agrees on it" }),
    layers: z.array(z.string()).meta({ description: "The layers it changes (kohya names)" }),
    base_hints: z.array(z.string()).meta({
      description: "The base model its metadata names (ss_base_model_version, modelspec.architecture)",
    }),
    origin: z.enum(["upload", "url"]),
    published: z.boolean().meta({
      description:
        "Published by the operator: every account's runs may name them (listed to all; only their owner deletes them)",
    }),
    created_at: timestamp,
  })
  .meta({ id: "Weights" });
export const WeightsResponse = z.object({ data: WeightsView });
export const WeightsList = z.object({
  data: z.object({ weights: z.array(WeightsView), next_cursor: z.string().nullable() }),
});
export const BatchView = z
  .object({
    id: z.string().meta({ example: "batch_2kdpCM5tfN6vjSuI1aG2v2" }),
    model_id: z.string(),
    status: z.enum(BATCH_STATUSES),
    counts: z.object({
      total: z.number().int().meta({ description: "Lines in" }),
      completed: z.number().int(),
      failed: z.number().int().meta({
        description: "Ended without an output: invalid lines, refused, failed, canceled or expired items",
      }),
      running: z.number().int().meta({ description: "Admitted, their runs not ended" }),
      pending: z.number().int().meta({ description: "Waiting to be admitted" }),
    }),
    tokens_charged: z.number().int(),
    discount_percent: z.number().int().meta({ description: "Percent off the model's price for each item" }),
    paused_reason: z.string().nullable().meta({
      description:
        "Why admission waits: insufficient_tokens, key_budget_exceeded (it goes on when they allow)",
    }),
    metadata: z.record(z.string(), z.string()).nullable(),
    webhook_url: z.string().nullable(),
    created_at: timestamp,
    expires_at: timestamp,
    in_progress_at: timestamp.nullable(),
    finalizing_at: timestamp.nullable(),
    canceling_at: timestamp.nullable(),
    ended_at: timestamp.nullable(),
  })
  .meta({ id: "Batch" });
export const BatchResponse = z.object({ data: BatchView });
/** One line of a batch's results or errors (application/jsonl: one such object a line). */
export const BatchResultLineView = batchResultLineSchema.meta({ id: "BatchResultLine" });
export const BatchList = z.object({
  data: z.object({ batches: z.array(BatchView), next_cursor: z.string().nullable() }),
});
export const WeightsDeleted = z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) });

const events = z.array(z.enum(EVENT_TYPES));
const secret = z.string().meta({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwJkU3Fx9w8Lg=" });
export const WebhookCreated = z.object({
  data: z.object({ id: z.string(), url: z.string(), events, signing_secret: secret }),
  message: z.string(),
});
export const WebhookList = z.object({
  data: z.object({ webhooks: z.array(EndpointView), total: z.number() }),
});
export const WebhookResponse = z.object({ data: EndpointView });
export const WebhookDeleted = z.object({ data: z.object({ id: z.string(), deleted: z.literal(true) }) });
export const SecretRotated = z.object({
  data: z.object({ id: z.string(), signing_secret: secret, previous_secret_expires_at: timestamp }),
  message: z.string(),
});
export const DefaultSecret = z.object({ data: z.object({ signing_secret: secret }) });
export const DeliveryList = z.object({
  data: z.object({ deliveries: z.array(DeliveryView), next_cursor: z.string().nullable() }),
});
export const Redelivered = z.object({
  data: z.object({ delivery_id: z.string(), redelivery_of: z.string() }),
});
export const TestQueued = z.object({
  data: z.object({ delivery_id: z.string(), event: z.literal("webhook.test") }),
});
/**
 * What webhooks POST. A run's own webhook_url gets `{ event, data }`; a registered endpoint also
 * gets `webhook_id`, `created_at` and `data.timestamp`. (packages/core/src/webhooks/events.ts
 * makes them; a test parses its payloads with these schemas.)
 */
const endpointOnly = (what: string) => ({ description: `Registered endpoints only: ${what}` });
const webhookPayload = <E extends string, D extends z.ZodRawShape>(event: E, data: D) =>
  z.object({
    event: z.literal(event),
    webhook_id: z.string().optional().meta(endpointOnly("the endpoint's id")),
    data: z.object({ ...data, timestamp: timestamp.optional().meta(endpointOnly("when it happened")) }),
    created_at: timestamp.optional().meta(endpointOnly("when the delivery was made")),
  });
const runRef = { run_id: runId, model_id: z.string() };
export const WEBHOOK_PAYLOADS = {
  "run.started": webhookPayload("run.started", { ...runRef, started_at: timestamp }),
  "run.completed": webhookPayload("run.completed", {
    ...runRef,
    result: z.record(z.string(), z.unknown()).meta({ description: "The run's output" }),
    tokens_charged: z.number().int(),
  }),
  "run.failed": webhookPayload("run.failed", {
    ...runRef,
    error: z.object({ message: z.string(), code: z.string() }),
    tokens_charged: z.literal(0),
  }),
  "run.canceled": webhookPayload("run.canceled", {
    ...runRef,
    canceled_at: timestamp.optional(),
    tokens_charged: z.number().int(),
  }),
  "account.balance_low": webhookPayload("account.balance_low", {
    available_tokens: z
      .number()
      .int()
      .meta({ description: "What the reservation that crossed the threshold left" }),
    threshold: z.number().int().meta({ description: "The account's low-balance threshold" }),
  }).meta({
    description:
      "Live endpoints subscribed to it, once per crossing: a reservation left available tokens below the threshold (armed again by a grant that brings them back, or by setting the threshold)",
  }),
  "key.budget_reached": webhookPayload("key.budget_reached", {
    key_id: z.string(),
    key_name: z.string(),
    budget_tokens: z.number().int(),
    period: z.enum(BUDGET_PERIODS),
    used_tokens: z
      .number()
      .int()
      .meta({ description: "Reserved or charged in the period when the run was refused" }),
    needed_tokens: z.number().int().meta({ description: "What the refused run would have reserved" }),
    resets_at: timestamp.nullable().meta({ description: "When the budget is whole again; null for total" }),
  }).meta({
    description:
      "Live endpoints subscribed to it, once per key and budget period: the key's budget refused a run (402 KEY_BUDGET_EXCEEDED) for the first time in the period, or since the budget was changed",
  }),
  "webhook.test": webhookPayload("webhook.test", { message: z.string() }),
} as const;
export const WebhookPayload = z.discriminatedUnion("event", [
  WEBHOOK_PAYLOADS["run.started"],
  WEBHOOK_PAYLOADS["run.completed"],
  WEBHOOK_PAYLOADS["run.failed"],
  WEBHOOK_PAYLOADS["run.canceled"],
  WEBHOOK_PAYLOADS["account.balance_low"],
  WEBHOOK_PAYLOADS["key.budget_reached"],
  WEBHOOK_PAYLOADS["webhook.test"],
]);

export const Health = z.object({ data: z.object({ status: z.literal("ok") }) });
export const Ready = z.object({
  data: z.object({
    status: z.literal("ready"),
    checks: z.object({ postgres: z.literal("ok"), redis: z.literal("ok") }),
  }),
});

export const tokens = z.number().int();
export const KeyBudgetView = z
  .object({
    tokens: tokens.meta({ description: "At most this many tokens per period" }),
    period: z.enum(BUDGET_PERIODS).meta({ description: "A UTC day, a UTC month, or the key's whole life" }),
    used: tokens.meta({
      description:
        "Reserved (runs in flight) or charged by the key's live runs created in the current period",
    }),
    remaining: tokens,
    period_start: timestamp,
    resets_at: timestamp.nullable().meta({ description: "When the budget is whole again; null for total" }),
  })
  .meta({ id: "KeyBudget" });
export const AccountResponse = z.object({
  data: z
    .object({
      id: z.string().meta({ example: "acct_1bq0HXsL3kQ8cRYyyzqZ1W" }),
      name: z.string(),
      balance: tokens.meta({
        description:
          "Tokens granted minus tokens charged (live mode; 0 for a test key: test mode has no tokens)",
      }),
      reserved: tokens.meta({
        description: "Tokens held for queued and executing live runs (0 for a test key)",
      }),
      available: tokens.meta({
        description: "balance - reserved: what new live runs can reserve (0 for a test key)",
      }),
      mode: z.enum(["live", "test"]).meta({ description: "The mode of the key that asked" }),
      max_concurrent_runs: z.number().meta({
        description:
          "Runs of this account executing at once on models of limited capacity (ACCOUNT_MAX_CONCURRENT_RUNS unless set for the account); more wait QUEUED",
      }),
      weight: z.number().meta({
        description:
          "The account's share of a busy model against other waiting accounts (turns in proportion to weights; 1 by default)",
      }),
      low_balance_threshold: tokens.nullable().meta({
        description:
          "account.balance_low is sent when a reservation leaves available tokens below it (owners set it in the console); null: never",
      }),
      key: z
        .object({
          id: z.string(),
          expires_at: timestamp.nullable(),
          allowed_models: z.array(z.string()).nullable(),
          budget: KeyBudgetView.nullable(),
          max_concurrent_runs: z.int().nullable(),
        })
        .nullable()
        .meta({
          description:
            "The limits of the API key that asked (its budget with what is used in the current period); null when no key asked",
        }),
      test_runs: z
        .object({
          limit: tokens.meta({ description: "TEST_RUNS_PER_DAY" }),
          remaining: tokens,
          resets_at: timestamp
            .nullable()
            .meta({ description: "When the 24-hour window that began with the first counted test run ends" }),
        })
        .meta({
          description:
            "Test runs of compute-costing models (all but acme/echo) the account may still start, across all of its test keys (while Redis cannot be reached, as this API process counts them)",
        }),
    })
    .meta({ id: "Account" }),
});
export const LedgerEntry = z
  .object({
    id: z.string().meta({ example: "led_5nmW1ZxbJ2pH2QbqNs1QfT" }),
    kind: z.enum(["GRANT", "RESERVE", "CHARGE", "RELEASE", "DEDUCT"]),
    amount: tokens,
    balance_delta: tokens,
    reserved_delta: tokens,
    run_id: runId.nullable(),
    note: z.string(),
    created_at: timestamp,
  })
  .meta({ id: "LedgerEntry" });
export const LedgerPage = z.object({
  data: z.object({ entries: z.array(LedgerEntry), next_cursor: z.string().nullable() }),
});
export const UsageResponse = z.object({
  data: z.object({
    days: z.array(
      z.object({
        date: z.string().meta({ format: "date", example: "2026-11-21" }),
        tokens_charged: tokens,
        runs_charged: tokens,
      }),
    ),
    total_tokens_charged: tokens,
  }),
});
