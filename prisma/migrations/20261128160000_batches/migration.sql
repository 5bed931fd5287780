-- Batches (issue #61): many runs of one model in one call, each line an item, admitted as a run as places free.
-- AlterEnum
ALTER TYPE "RunPriority" ADD VALUE 'batch';

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "batch_id" TEXT;

-- CreateTable
CREATE TABLE "batches" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "api_key_id" TEXT NOT NULL,
    "model_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "api" "RunApi" NOT NULL DEFAULT 'native',
    "endpoint" TEXT,
    "input_file_id" TEXT,
    "webhook_url" TEXT,
    "metadata" JSONB,
    "total" INTEGER NOT NULL DEFAULT 0,
    "invalid" INTEGER NOT NULL DEFAULT 0,
    "discount_percent" INTEGER NOT NULL,
    "paused_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "in_progress_at" TIMESTAMPTZ(3),
    "finalizing_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "canceling_at" TIMESTAMPTZ(3),

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_items" (
    "batch_id" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "custom_id" TEXT,
    "input" JSONB,
    "weights" TEXT[],
    "state" TEXT NOT NULL,
    "run_id" TEXT,
    "error" JSONB,

    CONSTRAINT "batch_items_pkey" PRIMARY KEY ("batch_id","line")
);

-- CreateIndex
CREATE INDEX "batches_account_id_mode_created_at_id_idx" ON "batches"("account_id", "mode", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "batches_status_idx" ON "batches"("status");

-- CreateIndex
CREATE INDEX "batch_items_batch_id_state_line_idx" ON "batch_items"("batch_id", "state", "line");

-- CreateIndex (partial: a run of no batch adds no entry to it)
CREATE INDEX "runs_batch_id_idx" ON "runs"("batch_id") WHERE "batch_id" IS NOT NULL;

-- CreateIndex (partial: a batch's runs not ended, a handful, counted by every feed pass)
CREATE INDEX "runs_batch_open_idx" ON "runs"("batch_id") WHERE "batch_id" IS NOT NULL AND "status" IN ('QUEUED', 'EXECUTING');

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_items" ADD CONSTRAINT "batch_items_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
