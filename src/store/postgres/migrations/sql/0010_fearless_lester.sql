CREATE TABLE "space_notices" (
	"notice_id" text PRIMARY KEY NOT NULL,
	"ab_id" text NOT NULL,
	"what" text NOT NULL,
	"at" text NOT NULL,
	"by_claim_id" text,
	"from_email" text,
	"to_email" text,
	"confirmation_id" text,
	"recipient" text NOT NULL,
	"recipient_role" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lead_email_confirmations" ADD COLUMN "waiting_notice_id" text;--> statement-breakpoint
ALTER TABLE "space_notices" ADD CONSTRAINT "space_notices_ab_id_merchants_ab_id_fk" FOREIGN KEY ("ab_id") REFERENCES "public"."merchants"("ab_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "space_notices_at" ON "space_notices" USING btree ("at");