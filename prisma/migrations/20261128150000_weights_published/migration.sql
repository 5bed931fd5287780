-- Weights an operator published (issue #60): every account's runs may name them, in both modes.
ALTER TABLE "weights" ADD COLUMN "published_at" TIMESTAMPTZ(3);

CREATE INDEX "weights_published_at_idx" ON "weights"("published_at");
