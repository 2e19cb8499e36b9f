ALTER TABLE `merchant_claims` ADD `email_key` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `basis` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `acr` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `amr` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `idp_id` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `lapsed_at` text;--> statement-breakpoint
CREATE INDEX `merchant_claims_email_key` ON `merchant_claims` (`email_key`);--> statement-breakpoint
ALTER TABLE `pro_sessions` ADD `acr` text;--> statement-breakpoint
ALTER TABLE `pro_sessions` ADD `amr` text;--> statement-breakpoint
ALTER TABLE `pro_sessions` ADD `idp_id` text;