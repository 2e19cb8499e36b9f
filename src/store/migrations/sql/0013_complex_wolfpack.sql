CREATE TABLE `merchant_claims` (
	`claim_id` text PRIMARY KEY NOT NULL,
	`ab_id` text NOT NULL,
	`siren` text NOT NULL,
	`subject` text NOT NULL,
	`email` text,
	`via` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	`revoked_by` text,
	`revoked_reason` text,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `merchant_claims_merchant` ON `merchant_claims` (`ab_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `merchant_claims_subject` ON `merchant_claims` (`subject`);--> statement-breakpoint
CREATE UNIQUE INDEX `merchant_claims_live` ON `merchant_claims` (`ab_id`,`subject`) WHERE "merchant_claims"."revoked_at" IS NULL;--> statement-breakpoint
CREATE TABLE `pro_sessions` (
	`session_id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`subject` text NOT NULL,
	`email` text,
	`given_name` text,
	`usual_name` text,
	`siret` text,
	`siren` text,
	`via` text NOT NULL,
	`id_token` text,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`idle_expires_at` text NOT NULL,
	`absolute_expires_at` text NOT NULL,
	`ended_at` text,
	`ended_reason` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pro_sessions_token` ON `pro_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `pro_sessions_subject` ON `pro_sessions` (`subject`);--> statement-breakpoint
CREATE TABLE `pro_sign_ins` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`nonce` text NOT NULL,
	`code_verifier` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text
);
--> statement-breakpoint
CREATE INDEX `pro_sign_ins_expires` ON `pro_sign_ins` (`expires_at`);