CREATE TABLE `kept_card_cursors` (
	`format` text PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `kept_cards` (
	`ab_id` text PRIMARY KEY NOT NULL,
	`format` text NOT NULL,
	`built_at` integer NOT NULL,
	`valid_until` text,
	`card` text NOT NULL,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `kept_cards_valid_until` ON `kept_cards` (`format`,`valid_until`);