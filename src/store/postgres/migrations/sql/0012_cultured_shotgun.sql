ALTER TABLE "signals" ADD COLUMN "changed_at" text;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "origin" text;