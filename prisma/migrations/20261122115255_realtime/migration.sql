-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "cancel_at" TIMESTAMPTZ(3),
ADD COLUMN     "webhook_events" TEXT[] DEFAULT ARRAY['run.completed', 'run.failed']::TEXT[];
