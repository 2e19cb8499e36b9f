-- Written by hand: the published documents live in the database (docs/several-machines.md,
-- "Published documents live in the database"). The refresh (on the leader) writes each file it
-- published or removed here; every instance mirrors the table into its own DATA_DIR/publish and
-- serves from there. A removed file stays as a row without a body (a tombstone) so that a mirror
-- that was behind removes it too.
CREATE TABLE "published_documents" (
	"path" text PRIMARY KEY NOT NULL,
	"body" bytea,
	"sha256" text,
	"content_type" text,
	"revision" bigint NOT NULL,
	"published_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "published_documents_revision" ON "published_documents" ("revision");
--> statement-breakpoint
-- One row: the last publication's revision (each publication adds one) and the refresh run it
-- carried (its index's generatedAt and publish key), so the next run knows whether the table holds
-- what its own index says was published.
CREATE TABLE "published_state" (
	"id" smallint PRIMARY KEY NOT NULL CHECK ("id" = 1),
	"revision" bigint NOT NULL,
	"run_generated_at" text NOT NULL,
	"publish_key" text NOT NULL,
	"published_at" text NOT NULL
);
--> statement-breakpoint
-- Every instance's mirror listens on abeille_published: the notice leaves with the commit of the
-- publication (none for a rolled-back one), its payload the new revision.
CREATE FUNCTION "abeille_notify_published"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('abeille_published', NEW."revision"::text);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "published_state_notify" AFTER INSERT OR UPDATE ON "published_state"
  FOR EACH ROW EXECUTE FUNCTION "abeille_notify_published"();
--> statement-breakpoint
-- The refresh's own index (on one machine DATA_DIR/publish/.abeille/index.db, src/store/publish-index.ts):
-- shared, so that whichever instance leads carries on from the last run, and written in the same
-- transaction as the published documents.
CREATE TABLE "publish_index_meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "publish_index_entries" (
	"ab_id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"stamp" text NOT NULL,
	"fingerprint" text NOT NULL,
	"since" text NOT NULL,
	"until" text,
	"hashes" text NOT NULL,
	"file_count" integer NOT NULL,
	"card_hash" text,
	"snapshot_expires_at" text,
	"has_snapshot" boolean NOT NULL,
	"snapshot_due" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "publish_index_entries_until" ON "publish_index_entries" ("until") WHERE "until" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "publish_index_entries_snapshot_due" ON "publish_index_entries" ("snapshot_due");
--> statement-breakpoint
CREATE INDEX "publish_index_entries_with_snapshot" ON "publish_index_entries" ("has_snapshot") WHERE "has_snapshot";
