CREATE TABLE `space_notices` (
	`notice_id` text PRIMARY KEY NOT NULL,
	`ab_id` text NOT NULL,
	`what` text NOT NULL,
	`at` text NOT NULL,
	`by_claim_id` text,
	`from_email` text,
	`to_email` text,
	`confirmation_id` text,
	`recipient` text NOT NULL,
	`recipient_role` text NOT NULL,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `space_notices_at` ON `space_notices` (`at`);--> statement-breakpoint
ALTER TABLE `lead_email_confirmations` ADD `waiting_notice_id` text;