-- Written by hand: the fingerprints of the files every machine of a deployment must hold alike
-- (docs/several-machines.md, "Secrets and signing keys reach every machine by copy"): the HMAC
-- secrets under DATA_DIR/secrets and the signing keys' public half. Only SHA-256 fingerprints:
-- the secrets themselves never go into the database. Not in the SQLite schema (one machine).
CREATE TABLE "deployment_files" (
  "name" text PRIMARY KEY,
  "sha256" text NOT NULL,
  "recorded_at" text NOT NULL,
  "recorded_by" text NOT NULL
);
