CREATE TABLE "official_row_digests" (
	"ab_id" text PRIMARY KEY NOT NULL,
	"digest" text NOT NULL,
	"revision" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "official_row_digests" ADD CONSTRAINT "official_row_digests_ab_id_merchants_ab_id_fk" FOREIGN KEY ("ab_id") REFERENCES "public"."merchants"("ab_id") ON DELETE cascade ON UPDATE no action;