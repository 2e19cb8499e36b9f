CREATE TABLE `agents` (
	`agent_id` text PRIMARY KEY NOT NULL,
	`agent_name` text NOT NULL,
	`agent_url` text,
	`contact_email` text NOT NULL,
	`requested_level` integer NOT NULL,
	`certification_level` integer NOT NULL,
	`status` text NOT NULL,
	`capabilities` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agents_key_hash` ON `agents` (`key_hash`);--> statement-breakpoint
CREATE TABLE `attribution_sessions` (
	`session_id` text PRIMARY KEY NOT NULL,
	`agent_id` text,
	`ab_id` text,
	`evidence_level` text NOT NULL,
	`referrer` text,
	`campaign` text,
	`user_agent_family` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`converted_at` text,
	`lead_id` text,
	`order_id` text
);
--> statement-breakpoint
CREATE INDEX `attribution_expires` ON `attribution_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`resource_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE TABLE `lead_dedup_windows` (
	`ab_id` text NOT NULL,
	`email_normalized` text NOT NULL,
	`lead_type` text NOT NULL,
	`lead_id` text NOT NULL,
	`window_ends_at` text NOT NULL,
	PRIMARY KEY(`ab_id`, `email_normalized`, `lead_type`)
);
--> statement-breakpoint
CREATE TABLE `lead_messages` (
	`message_id` text PRIMARY KEY NOT NULL,
	`lead_id` text NOT NULL,
	`direction` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`anonymized_at` text,
	FOREIGN KEY (`lead_id`) REFERENCES `leads`(`lead_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `lead_messages_lead` ON `lead_messages` (`lead_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `leads` (
	`lead_id` text PRIMARY KEY NOT NULL,
	`ab_id` text NOT NULL,
	`brick_id` text,
	`intent` text,
	`lead_type` text NOT NULL,
	`contact_name` text NOT NULL,
	`contact_email` text NOT NULL,
	`contact_phone` text,
	`message` text,
	`ai_context` text,
	`intent_data` text,
	`metadata` text,
	`agent_id` text,
	`tracking_status` text NOT NULL,
	`created_at` text NOT NULL,
	`delivered_at` text,
	`failed_at` text,
	`anonymized_at` text,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `leads_merchant` ON `leads` (`ab_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `leads_created` ON `leads` (`created_at`);--> statement-breakpoint
CREATE TABLE `orders` (
	`order_id` text PRIMARY KEY NOT NULL,
	`ab_id` text NOT NULL,
	`items` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`fulfillment_type` text NOT NULL,
	`delivery_address` text,
	`user_email` text,
	`customer_notes` text,
	`agent_id` text,
	`status` text NOT NULL,
	`payment_provider` text NOT NULL,
	`payment_intent_id` text,
	`checkout_url` text,
	`created_at` text NOT NULL,
	`anonymized_at` text,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `orders_merchant` ON `orders` (`ab_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `outbox` (
	`message_id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`sent_at` text
);
--> statement-breakpoint
CREATE INDEX `outbox_due` ON `outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `platform_contacts` (
	`contact_id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`phone` text,
	`company` text,
	`message` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`anonymized_at` text
);
