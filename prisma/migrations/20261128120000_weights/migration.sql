-- Personal weights (issue #60): safetensors files (LoRAs) an account uploads and its runs name.
CREATE TABLE "weights" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "api_key_id" TEXT,
    "name" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "tensor_count" INTEGER NOT NULL,
    "rank" INTEGER,
    "layers" TEXT[],
    "tensors" JSONB NOT NULL,
    "base_hints" TEXT[],
    "origin" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "weights_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "weights_size_check" CHECK ("size" >= 0),
    CONSTRAINT "weights_origin_check" CHECK ("origin" IN ('upload', 'url'))
);

CREATE INDEX "weights_account_id_mode_created_at_id_idx" ON "weights"("account_id", "mode", "created_at" DESC, "id" DESC);
CREATE INDEX "weights_sha256_idx" ON "weights"("sha256");

ALTER TABLE "weights" ADD CONSTRAINT "weights_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "weights" ADD CONSTRAINT "weights_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;
