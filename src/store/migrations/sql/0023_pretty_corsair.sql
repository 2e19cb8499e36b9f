ALTER TABLE `signals` ADD `changed_at` text;--> statement-breakpoint
ALTER TABLE `signals` ADD `origin` text;