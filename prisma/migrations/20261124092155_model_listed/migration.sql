-- AlterTable
ALTER TABLE "models" ADD COLUMN     "listed" BOOLEAN NOT NULL DEFAULT true;
