CREATE TABLE `merchant_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ab_id` text NOT NULL,
	`revision` integer NOT NULL,
	`change` text NOT NULL,
	`changed_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `merchant_changes_merchant` ON `merchant_changes` (`ab_id`,`seq`);--> statement-breakpoint
CREATE TABLE `merchant_events` (
	`event_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ab_id` text NOT NULL,
	`at` text NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`changes` text NOT NULL,
	`reason` text,
	`revision` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `merchant_events_merchant` ON `merchant_events` (`ab_id`,`event_id`);--> statement-breakpoint
ALTER TABLE `merchants` ADD `revision` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
-- Added by hand: the audit log and the change feed are append-only.
CREATE TRIGGER `merchant_events_no_update` BEFORE UPDATE ON `merchant_events` BEGIN SELECT RAISE(ABORT, 'merchant_events is append-only'); END;--> statement-breakpoint
CREATE TRIGGER `merchant_events_no_delete` BEFORE DELETE ON `merchant_events` BEGIN SELECT RAISE(ABORT, 'merchant_events is append-only'); END;--> statement-breakpoint
CREATE TRIGGER `merchant_changes_no_update` BEFORE UPDATE ON `merchant_changes` BEGIN SELECT RAISE(ABORT, 'merchant_changes is append-only'); END;--> statement-breakpoint
CREATE TRIGGER `merchant_changes_no_delete` BEFORE DELETE ON `merchant_changes` BEGIN SELECT RAISE(ABORT, 'merchant_changes is append-only'); END;--> statement-breakpoint
-- Added by hand: the feed starts with every merchant listed before it existed, in creation order.
INSERT INTO `merchant_changes` (`ab_id`, `revision`, `change`, `changed_at`)
  SELECT `ab_id`, 1, 'created', `created_at` FROM `merchants`
  WHERE `status` IN ('ACTIVE', 'PROBATION', 'PAUSED') ORDER BY `created_at`, `ab_id`;
