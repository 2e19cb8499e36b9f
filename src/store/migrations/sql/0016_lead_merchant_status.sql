ALTER TABLE `lead_messages` ADD `author` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `merchant_status` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `merchant_status_at` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `merchant_status_by` text;