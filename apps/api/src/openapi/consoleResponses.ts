import { z } from "zod";
import { RUNNER_KINDS, USER_ROLES, RunDetailView, timestampView as timestamp } from "@svc/core";

import { KeyBudgetView, LedgerEntry, tokens } from "./responses.js";

// The console's answers (its session, its keys, an operator's pages): what its routes declare as
// their reply, as responses.ts holds the public API's.
// The console's own operations (session cookie).
export const SignedIn = z.object({ data: z.object({ csrf_token: z.string(), expires_at: timestamp }) });
export const SessionResponse = z.object({
  data: z.object({
    user: z.object({ id: z.string(), email: z.string(), role: z.enum(USER_ROLES) }),
    account: z.object({ id: z.string(), name: z.string() }),
    csrf_token: z.string(),
    expires_at: timestamp,
  }),
});
export const SignedOut = z.object({ data: z.object({ signed_out: z.literal(true) }) });
const ApiKey = z
  .object({
    id: z.string().meta({ example: "key_0gTfH5M8l3n9sYx2ZpQb4c" }),
    name: z.string(),
    mode: z.enum(["live", "test"]),
    prefix: z.string().meta({ description: "The key's first characters; never enough to use it" }),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
    expires_at: timestamp.nullable().meta({ description: "After it, the key answers 401; null: never" }),
    allowed_models: z
      .array(z.string())
      .nullable()
      .meta({ description: "The only models the key may run; null: every model" }),
    budget: KeyBudgetView.nullable().meta({ description: "The key's spend budget; null: none" }),
    max_concurrent_runs: z.int().nullable().meta({
      description: "Runs of the key executing at once on limited models; null: the account's limit only",
    }),
  })
  .meta({ id: "ApiKey" });
const ListedKey = ApiKey.extend({
  spend: z
    .object({ today: z.int(), this_month: z.int() })
    .meta({ description: "Tokens charged to the key's runs since the start of the UTC day and month" }),
}).meta({ id: "ListedApiKey" });
export const KeyList = z.object({ data: z.object({ keys: z.array(ListedKey) }) });
export const KeyCreated = z.object({
  data: ApiKey.extend({ key: z.string().meta({ description: "The full key, shown only in this answer" }) }),
  message: z.string(),
});
export const KeyUpdated = z.object({ data: ApiKey });
export const AccountAlerts = z.object({ data: z.object({ low_balance_threshold: z.int().nullable() }) });
export const KeyRevoked = z.object({ data: z.object({ id: z.string(), revoked_at: timestamp }) });
export const RunDetailResponse = z.object({ data: RunDetailView });

// The operator console's answers (operators only; never a key's or an endpoint's secret).
const OperatorAccount = z
  .object({
    id: z.string(),
    name: z.string(),
    balance: tokens,
    reserved: tokens,
    available: tokens,
    weight: z.int(),
    max_concurrent_runs: z.int().nullable().meta({ description: "null: ACCOUNT_MAX_CONCURRENT_RUNS" }),
    low_balance_threshold: tokens.nullable(),
    people: z.int(),
    charged_30d: tokens.meta({ description: "Tokens charged in the last 30 days" }),
    created_at: timestamp,
  })
  .meta({ id: "OperatorAccount" });
const Person = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.enum(USER_ROLES),
    created_at: timestamp,
    last_sign_in_at: timestamp.nullable(),
    disabled_at: timestamp.nullable(),
  })
  .meta({ id: "Person" });
export const OperatorAccounts = z.object({ data: z.object({ accounts: z.array(OperatorAccount) }) });
export const OperatorAccountResponse = z.object({ data: OperatorAccount });
export const OperatorAccountDetail = z.object({
  data: z.object({
    account: OperatorAccount,
    people: z.array(Person),
    keys: z.array(ApiKey).meta({ description: "Prefixes and limits only: a key's secret is never stored" }),
    ledger: z.array(LedgerEntry).meta({ description: "The newest 20 entries" }),
  }),
});
export const PersonResponse = z.object({ data: Person });
export const OperatorModels = z.object({
  data: z.object({
    models: z.array(
      z
        .object({
          id: z.string(),
          name: z.string(),
          category: z.string(),
          status: z.string(),
          unit: z.string(),
          tokens_per_unit: z.int(),
          runner: z.enum(RUNNER_KINDS),
          servers: z.array(z.string()).meta({
            description: "A model server kind's servers (Cog, OpenAI-style); [] for built-in generators",
          }),
          concurrency: z.int().nullable().meta({ description: "Runs at once per server" }),
          max_queue: z.int().nullable(),
          queue: z
            .object({
              capacity: z.int(),
              in_flight: z.int(),
              queue_length: z.int(),
              oldest_queued_at: timestamp.nullable(),
              servers_down: z.array(z.string()),
              servers: z.array(z.object({ url: z.string(), up: z.boolean(), state: z.string() })).meta({
                description:
                  "Each server as its last health check found it; a down one's state in its own words (Cog: STARTING, SETUP_FAILED, DEFUNCT, UNHEALTHY; HTTP 503; no answer)",
              }),
            })
            .nullable()
            .meta({
              description:
                "Its pool now (models of limited capacity); null while Redis is away or for unlimited models",
            }),
        })
        .meta({ id: "OperatorModel" }),
    ),
  }),
});
export const AuditPage = z.object({
  data: z.object({
    entries: z.array(
      z
        .object({
          id: z.string(),
          actor_email: z.string(),
          action: z.string(),
          account_id: z.string().nullable(),
          target_id: z.string(),
          before: z.unknown(),
          after: z.unknown(),
          reason: z.string(),
          created_at: timestamp,
        })
        .meta({ id: "AuditEntry" }),
    ),
    next_cursor: z.string().nullable(),
  }),
});
