CREATE TABLE `lead_email_confirmations` (
	`confirmation_id` text PRIMARY KEY NOT NULL,
	`ab_id` text NOT NULL,
	`email` text NOT NULL,
	`token_hash` text NOT NULL,
	`requested_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`sent_at` text,
	`confirmed_at` text,
	`withdrawn_at` text,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lead_email_confirmations_token` ON `lead_email_confirmations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `lead_email_confirmations_merchant` ON `lead_email_confirmations` (`ab_id`,`created_at`);