-- Input files (issue #49): uploads, and URLs or data URLs given as run inputs, stored as files.
CREATE TABLE "files" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "mode" "Mode" NOT NULL,
    "api_key_id" TEXT,
    "content_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "width" INTEGER,
    "height" INTEGER,
    "origin" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "files_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "files_size_check" CHECK ("size" >= 0),
    CONSTRAINT "files_origin_check" CHECK ("origin" IN ('upload', 'url', 'data_url'))
);

CREATE INDEX "files_account_id_mode_created_at_id_idx" ON "files"("account_id", "mode", "created_at" DESC, "id" DESC);
CREATE INDEX "files_expires_at_idx" ON "files"("expires_at");

ALTER TABLE "files" ADD CONSTRAINT "files_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "files" ADD CONSTRAINT "files_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;
