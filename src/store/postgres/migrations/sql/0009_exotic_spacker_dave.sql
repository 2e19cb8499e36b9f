ALTER TABLE "merchant_claims" ADD COLUMN "email_key" text;--> statement-breakpoint
ALTER TABLE "merchant_claims" ADD COLUMN "basis" text;--> statement-breakpoint
ALTER TABLE "merchant_claims" ADD COLUMN "acr" text;--> statement-breakpoint
ALTER TABLE "merchant_claims" ADD COLUMN "amr" text;--> statement-breakpoint
ALTER TABLE "merchant_claims" ADD COLUMN "idp_id" text;--> statement-breakpoint
ALTER TABLE "merchant_claims" ADD COLUMN "lapsed_at" text;--> statement-breakpoint
ALTER TABLE "pro_sessions" ADD COLUMN "acr" text;--> statement-breakpoint
ALTER TABLE "pro_sessions" ADD COLUMN "amr" text;--> statement-breakpoint
ALTER TABLE "pro_sessions" ADD COLUMN "idp_id" text;--> statement-breakpoint
CREATE INDEX "merchant_claims_email_key" ON "merchant_claims" USING btree ("email_key");--> statement-breakpoint
-- Written by hand: claims made before email_key existed are matched by their address too (a revocation
-- holds against the person, not one sub: src/domain/merchant-space/claims.ts), and a letter claim rests on its letter.
UPDATE "merchant_claims" SET "email_key" = lower("email") WHERE "email" IS NOT NULL AND "email_key" IS NULL;--> statement-breakpoint
UPDATE "merchant_claims" SET "basis" = 'letter' WHERE "via" = 'letter' AND "basis" IS NULL;
