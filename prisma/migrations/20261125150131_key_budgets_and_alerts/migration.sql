-- CreateEnum
CREATE TYPE "BudgetPeriod" AS ENUM ('day', 'month', 'total');

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "balance_low_armed" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "low_balance_threshold" INTEGER;

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "budget_alerted_period" TIMESTAMPTZ(3),
ADD COLUMN     "budget_period" "BudgetPeriod",
ADD COLUMN     "budget_period_start" TIMESTAMPTZ(3),
ADD COLUMN     "budget_tokens" INTEGER,
ADD COLUMN     "budget_used" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "max_concurrent_runs" INTEGER;

-- Limits are positive, a budget has both its size and its period, the counter never goes negative.
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_budget_valid" CHECK (
  ("budget_tokens" IS NULL) = ("budget_period" IS NULL) AND ("budget_tokens" IS NULL OR "budget_tokens" > 0)
  AND "budget_used" >= 0);
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_max_concurrent_runs_positive" CHECK ("max_concurrent_runs" IS NULL OR "max_concurrent_runs" >= 1);
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_low_balance_threshold_positive" CHECK ("low_balance_threshold" IS NULL OR "low_balance_threshold" >= 1);

-- The start of the budget period that contains `at`: the UTC day or month, or, for a total budget,
-- the fixed start the key keeps. Run creation passes now() rounded as runs.created_at stores it,
-- so a run is counted in the period its created_at falls in, and settlement can tell whether the
-- run belongs to the period the key's counter is for.
CREATE FUNCTION svc_period_start(period "BudgetPeriod", at TIMESTAMPTZ, fixed TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE period
    WHEN 'day' THEN date_trunc('day', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    WHEN 'month' THEN date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    ELSE fixed END
$$;
