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
