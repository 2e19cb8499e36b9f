ALTER TABLE `merchant_claims` ADD `email_key` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `basis` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `acr` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `amr` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `idp_id` text;--> statement-breakpoint
ALTER TABLE `merchant_claims` ADD `lapsed_at` text;--> statement-breakpoint
CREATE INDEX `merchant_claims_email_key` ON `merchant_claims` (`email_key`);--> statement-breakpoint
ALTER TABLE `pro_sessions` ADD `acr` text;--> statement-breakpoint
ALTER TABLE `pro_sessions` ADD `amr` text;--> statement-breakpoint
ALTER TABLE `pro_sessions` ADD `idp_id` text;--> statement-breakpoint
-- Written by hand: claims made before email_key existed are matched by their address too (a revocation
-- holds against the person, not one sub: src/domain/merchant-space/claims.ts), and a letter claim rests on its letter.
UPDATE `merchant_claims` SET `email_key` = lower(`email`) WHERE `email` IS NOT NULL AND `email_key` IS NULL;--> statement-breakpoint
UPDATE `merchant_claims` SET `basis` = 'letter' WHERE `via` = 'letter' AND `basis` IS NULL;
