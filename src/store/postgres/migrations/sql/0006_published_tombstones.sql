-- Written by hand: a removed file's row (a tombstone) is pruned by the publication once it is older
-- than the retention (src/store/postgres/published-documents.ts, TOMBSTONE_RETENTION_MS). The
-- highest revision pruned is kept, so that a mirror whose last revision is older, and which may
-- therefore have missed a removal, catches up in full and deletes what the table no longer has.
ALTER TABLE "published_state" ADD COLUMN "pruned_revision" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- The publication's prune reads only tombstones, by age: not the half a million live files.
CREATE INDEX "published_documents_tombstones" ON "published_documents" ("published_at") WHERE "body" IS NULL;
