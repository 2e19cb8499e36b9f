-- Written by hand: what the SQLite migrations 0002, 0004 and 0007 do with triggers, in PL/pgSQL.
-- The one row whose revision grows with every write to a merchant's published inputs.
INSERT INTO "store_revision" ("id", "revision") VALUES (1, 0);
--> statement-breakpoint
-- A write to a merchant's row, products, signals, territorial proof or Q&A clusters moves the store
-- revision by one and records it as the merchant's touch, in the same statement (SQLite 0007).
CREATE FUNCTION "abeille_touch_merchant"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched_ab_id text;
BEGIN
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
-- A Q&A node touches the merchant of its cluster.
CREATE FUNCTION "abeille_touch_qa_node_merchant"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  node_cluster_id text;
BEGIN
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
--> statement-breakpoint
CREATE TRIGGER "merchants_touch" AFTER INSERT OR UPDATE OR DELETE ON "merchants"
  FOR EACH ROW EXECUTE FUNCTION "abeille_touch_merchant"();
--> statement-breakpoint
CREATE TRIGGER "signals_touch" AFTER INSERT OR UPDATE OR DELETE ON "signals"
  FOR EACH ROW EXECUTE FUNCTION "abeille_touch_merchant"();
--> statement-breakpoint
CREATE TRIGGER "products_touch" AFTER INSERT OR UPDATE OR DELETE ON "products"
  FOR EACH ROW EXECUTE FUNCTION "abeille_touch_merchant"();
--> statement-breakpoint
CREATE TRIGGER "territorial_proofs_touch" AFTER INSERT OR UPDATE OR DELETE ON "territorial_proofs"
  FOR EACH ROW EXECUTE FUNCTION "abeille_touch_merchant"();
--> statement-breakpoint
CREATE TRIGGER "qa_clusters_touch" AFTER INSERT OR UPDATE OR DELETE ON "qa_clusters"
  FOR EACH ROW EXECUTE FUNCTION "abeille_touch_merchant"();
--> statement-breakpoint
CREATE TRIGGER "qa_nodes_touch" AFTER INSERT OR UPDATE OR DELETE ON "qa_nodes"
  FOR EACH ROW EXECUTE FUNCTION "abeille_touch_qa_node_merchant"();
--> statement-breakpoint
-- The audit log and the change feed are append-only (SQLite 0004), TRUNCATE included.
CREATE FUNCTION "abeille_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "merchant_events_append_only" BEFORE UPDATE OR DELETE ON "merchant_events"
  FOR EACH ROW EXECUTE FUNCTION "abeille_refuse_change"();
--> statement-breakpoint
CREATE TRIGGER "merchant_events_no_truncate" BEFORE TRUNCATE ON "merchant_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "abeille_refuse_change"();
--> statement-breakpoint
CREATE TRIGGER "merchant_changes_append_only" BEFORE UPDATE OR DELETE ON "merchant_changes"
  FOR EACH ROW EXECUTE FUNCTION "abeille_refuse_change"();
--> statement-breakpoint
CREATE TRIGGER "merchant_changes_no_truncate" BEFORE TRUNCATE ON "merchant_changes"
  FOR EACH STATEMENT EXECUTE FUNCTION "abeille_refuse_change"();
