CREATE TABLE `letter_codes` (
	`letter_id` text PRIMARY KEY NOT NULL,
	`ab_id` text NOT NULL,
	`batch_id` text NOT NULL,
	`locator_hash` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text,
	`failed_attempts` integer DEFAULT 0 NOT NULL,
	`locked_at` text,
	`superseded_at` text,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `letter_codes_locator` ON `letter_codes` (`locator_hash`);--> statement-breakpoint
CREATE INDEX `letter_codes_merchant` ON `letter_codes` (`ab_id`);--> statement-breakpoint
CREATE TABLE `space_sign_in_links` (
	`link_id` text PRIMARY KEY NOT NULL,
	`claim_id` text NOT NULL,
	`email` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text
);
--> statement-breakpoint
CREATE INDEX `space_sign_in_links_expiry` ON `space_sign_in_links` (`expires_at`);