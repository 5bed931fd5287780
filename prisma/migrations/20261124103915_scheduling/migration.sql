-- CreateEnum
CREATE TYPE "RunPriority" AS ENUM ('normal', 'low');

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "max_concurrent_runs" INTEGER,
ADD COLUMN     "weight" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "models" ADD COLUMN     "max_queue" INTEGER;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "priority" "RunPriority" NOT NULL DEFAULT 'normal';

-- Fair share needs a positive weight and a positive limit, and a queue cap of 0 would refuse every run.
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_weight_range" CHECK ("weight" BETWEEN 1 AND 1000);
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_max_concurrent_runs_positive" CHECK ("max_concurrent_runs" IS NULL OR "max_concurrent_runs" >= 1);
ALTER TABLE "models" ADD CONSTRAINT "models_max_queue_positive" CHECK ("max_queue" IS NULL OR "max_queue" >= 1);
