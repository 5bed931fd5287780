-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "allowed_models" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "expires_at" TIMESTAMPTZ(3);
