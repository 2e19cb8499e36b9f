PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_lead_dedup_windows` (
	`ab_id` text NOT NULL,
	`email_normalized` text NOT NULL,
	`lead_type` text NOT NULL,
	`caller_scope` text NOT NULL,
	`lead_id` text NOT NULL,
	`window_ends_at` text NOT NULL,
	PRIMARY KEY(`ab_id`, `email_normalized`, `lead_type`, `caller_scope`)
);
--> statement-breakpoint
-- Edited by hand: the windows opened before this migration name no caller, and none is copied.
-- For a day at most, a repeat of an earlier submission creates a new lead (the safe side: no
-- lead is handed to another caller, no message dropped). drizzle-kit copied a column that does
-- not exist in the old table.
DROP TABLE `lead_dedup_windows`;--> statement-breakpoint
ALTER TABLE `__new_lead_dedup_windows` RENAME TO `lead_dedup_windows`;--> statement-breakpoint
PRAGMA foreign_keys=ON;