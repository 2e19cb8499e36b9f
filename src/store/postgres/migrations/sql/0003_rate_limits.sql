-- Written by hand: the rate limiter's TATs on PostgreSQL, for a deployment without Redis
-- (docs/several-machines.md: limits hold across machines, never counted in one machine's file).
-- Not in the SQLite schema: on SQLite they live in a file of their own (DATA_DIR/limits.db).
-- UNLOGGED, as that file is written without fsync: one write per counted request, and losing
-- the table after a crash costs nothing but fresh budgets.
CREATE UNLOGGED TABLE "rate_limits" (
  "key" text PRIMARY KEY,
  "tat" double precision NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_limits_tat" ON "rate_limits" ("tat");
--> statement-breakpoint
-- The GCRA steps of one batch, in the order given (a key may come several times), in one round
-- trip: the row moves only when the call fits; a refused call reads the key's TAT (at least now).
CREATE FUNCTION "abeille_rate_limit_advance"(keys text[], nows float8[], intervals float8[], windows float8[])
RETURNS TABLE ("allowed_out" boolean, "tat_out" float8) LANGUAGE plpgsql AS $$
DECLARE
  i integer;
  moved float8;
  stored float8;
BEGIN
  FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
    moved := NULL;
    INSERT INTO "rate_limits" AS r ("key", "tat") VALUES (keys[i], nows[i] + intervals[i])
    ON CONFLICT ("key") DO UPDATE SET "tat" = greatest(r."tat", nows[i]) + intervals[i]
      WHERE greatest(r."tat", nows[i]) + intervals[i] - nows[i] <= windows[i]
    RETURNING r."tat" INTO moved;
    IF moved IS NOT NULL THEN
      allowed_out := true;
      tat_out := moved;
    ELSE
      SELECT r."tat" INTO stored FROM "rate_limits" r WHERE r."key" = keys[i];
      allowed_out := false;
      tat_out := greatest(coalesce(stored, nows[i]), nows[i]);
    END IF;
    RETURN NEXT;
  END LOOP;
END
$$;
