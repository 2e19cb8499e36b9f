ALTER TABLE "store_revision" ADD COLUMN "deferred_touches" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Written by hand: the touch triggers stand aside while a registry batch writes (SQLite 0026).
CREATE OR REPLACE FUNCTION "abeille_touch_merchant"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched_ab_id text;
BEGIN
  IF (SELECT "deferred_touches" FROM "store_revision" WHERE "id" = 1) <> 0 THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    touched_ab_id := OLD."ab_id";
  ELSE
    touched_ab_id := NEW."ab_id";
  END IF;
  UPDATE "store_revision" SET "revision" = "revision" + 1 WHERE "id" = 1;
  INSERT INTO "merchant_touches" ("ab_id", "touch")
    SELECT touched_ab_id, r."revision" FROM "store_revision" r WHERE r."id" = 1
    ON CONFLICT ("ab_id") DO UPDATE SET "touch" = excluded."touch";
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "abeille_touch_qa_node_merchant"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  node_cluster_id text;
BEGIN
  IF (SELECT "deferred_touches" FROM "store_revision" WHERE "id" = 1) <> 0 THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    node_cluster_id := OLD."cluster_id";
  ELSE
    node_cluster_id := NEW."cluster_id";
  END IF;
  UPDATE "store_revision" SET "revision" = "revision" + 1 WHERE "id" = 1;
  INSERT INTO "merchant_touches" ("ab_id", "touch")
    SELECT c."ab_id", r."revision" FROM "qa_clusters" c, "store_revision" r
    WHERE c."cluster_id" = node_cluster_id AND r."id" = 1
    ON CONFLICT ("ab_id") DO UPDATE SET "touch" = excluded."touch";
  RETURN NULL;
END
$$;
