-- Written by hand: every instance learns that the store moved (docs/several-machines.md). Each
-- statement that moves the store revision sends a notice on abeille_revision; the payload is
-- always the same, so PostgreSQL delivers one notice per committed transaction however many rows
-- it wrote (identical notices of one transaction are folded), and none for a rolled-back one.
-- A listener reads the revision itself after the notice.
CREATE FUNCTION "abeille_notify_revision"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('abeille_revision', '');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "store_revision_notify" AFTER UPDATE ON "store_revision"
  FOR EACH STATEMENT EXECUTE FUNCTION "abeille_notify_revision"();
