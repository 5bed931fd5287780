-- CreateEnum
CREATE TYPE "Mode" AS ENUM ('live', 'test');

-- CreateEnum
CREATE TYPE "ModelCategory" AS ENUM ('image', 'video', 'audio');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('QUEUED', 'EXECUTING', 'COMPLETED', 'FAILED', 'CANCELED');

-- CreateEnum
CREATE TYPE "LedgerKind" AS ENUM ('GRANT', 'RESERVE', 'CHARGE', 'RELEASE');

-- CreateEnum
CREATE TYPE "EndpointStatus" AS ENUM ('active', 'disabled');

-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "balance" INTEGER NOT NULL DEFAULT 0,
    "reserved" INTEGER NOT NULL DEFAULT 0,
    "webhook_secret_live_enc" TEXT,
    "webhook_secret_test_enc" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "models" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "category" "ModelCategory" NOT NULL,
    "outputs_image" BOOLEAN NOT NULL DEFAULT false,
    "outputs_video" BOOLEAN NOT NULL DEFAULT false,
    "outputs_audio" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'active',
    "highlighted" BOOLEAN NOT NULL DEFAULT false,
    "input_schema" JSONB NOT NULL,
    "pricing" JSONB NOT NULL,
    "runner" JSONB NOT NULL,
    "execution_timeout_ms" INTEGER NOT NULL DEFAULT 600000,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "models_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "api_key_id" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "model_id" TEXT NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'QUEUED',
    "input" JSONB NOT NULL,
    "webhook_url" TEXT,
    "units_requested" INTEGER NOT NULL,
    "units_completed" INTEGER NOT NULL DEFAULT 0,
    "estimated_tokens" INTEGER NOT NULL,
    "reserved_tokens" INTEGER NOT NULL DEFAULT 0,
    "tokens_charged" INTEGER,
    "output" JSONB,
    "error_code" TEXT,
    "error_message" TEXT,
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "canceled_at" TIMESTAMPTZ(3),
    "deadline_at" TIMESTAMPTZ(3),

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "run_id" TEXT,
    "kind" "LedgerKind" NOT NULL,
    "amount" INTEGER NOT NULL,
    "balance_delta" INTEGER NOT NULL,
    "reserved_delta" INTEGER NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "secret_enc" TEXT NOT NULL,
    "previous_secret_enc" TEXT,
    "previous_secret_until" TIMESTAMPTZ(3),
    "status" "EndpointStatus" NOT NULL DEFAULT 'active',
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deliveries" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "run_id" TEXT,
    "endpoint_id" TEXT,
    "url" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempts" (
    "id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error_class" TEXT,
    "success" BOOLEAN NOT NULL,

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE INDEX "models_status_category_idx" ON "models"("status", "category");

-- CreateIndex
CREATE INDEX "runs_account_id_mode_created_at_id_idx" ON "runs"("account_id", "mode", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "runs_status_created_at_idx" ON "runs"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "runs_account_id_mode_idempotency_key_key" ON "runs"("account_id", "mode", "idempotency_key");

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_created_at_idx" ON "ledger_entries"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_run_id_kind_key" ON "ledger_entries"("run_id", "kind");

-- CreateIndex
CREATE INDEX "webhook_endpoints_account_id_mode_status_idx" ON "webhook_endpoints"("account_id", "mode", "status");

-- CreateIndex
CREATE INDEX "deliveries_endpoint_id_created_at_idx" ON "deliveries"("endpoint_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "deliveries_status_created_at_idx" ON "deliveries"("status", "created_at");

-- CreateIndex
CREATE INDEX "deliveries_run_id_idx" ON "deliveries"("run_id");

-- CreateIndex
CREATE UNIQUE INDEX "delivery_attempts_delivery_id_number_key" ON "delivery_attempts"("delivery_id", "number");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Invariants that Prisma's schema language cannot express.
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_reserved_nonnegative" CHECK ("reserved" >= 0);
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_available_nonnegative" CHECK ("balance" >= "reserved");
ALTER TABLE "runs" ADD CONSTRAINT "runs_tokens_nonnegative" CHECK ("estimated_tokens" >= 0 AND "reserved_tokens" >= 0 AND ("tokens_charged" IS NULL OR "tokens_charged" >= 0));
ALTER TABLE "runs" ADD CONSTRAINT "runs_units_valid" CHECK ("units_requested" >= 0 AND "units_completed" >= 0 AND "units_completed" <= "units_requested");
ALTER TABLE "runs" ADD CONSTRAINT "runs_charge_within_estimate" CHECK ("tokens_charged" IS NULL OR "tokens_charged" <= "estimated_tokens");
ALTER TABLE "runs" ADD CONSTRAINT "runs_test_mode_free" CHECK ("mode" = 'live' OR ("reserved_tokens" = 0 AND COALESCE("tokens_charged", 0) = 0));
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_amount_nonnegative" CHECK ("amount" >= 0);
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_failures_nonnegative" CHECK ("consecutive_failures" >= 0);
