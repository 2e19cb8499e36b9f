CREATE TABLE `trust_sweeps` (
	`id` integer PRIMARY KEY NOT NULL,
	`position` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `signals_expiring` ON `signals` (`expires_at`,`ab_id`) WHERE "signals"."status" = 'verified' AND "signals"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `signals_recorded` ON `signals` (`key`,`value`,`ab_id`) WHERE "signals"."status" = 'verified';