CREATE TABLE `merchants` (
	`ab_id` text PRIMARY KEY NOT NULL,
	`siret` text NOT NULL,
	`legal_name` text NOT NULL,
	`business_name` text NOT NULL,
	`slug` text NOT NULL,
	`naf_code` text NOT NULL,
	`sector` text NOT NULL,
	`status` text NOT NULL,
	`rcs` text,
	`vat_intracom` text,
	`street` text NOT NULL,
	`postal_code` text NOT NULL,
	`city` text NOT NULL,
	`phone` text,
	`email` text,
	`website` text,
	`description` text,
	`description_llm_unreviewed` integer DEFAULT false NOT NULL,
	`brand_voice` text,
	`brand_updated_at` text,
	`hours` text,
	`timezone` text DEFAULT 'Europe/Paris' NOT NULL,
	`zones` text NOT NULL,
	`areas_declared_at` text,
	`delivery_enabled` integer DEFAULT false NOT NULL,
	`delivery_radius_km` real,
	`languages` text NOT NULL,
	`founded_on` text NOT NULL,
	`domain_age_years` integer,
	`listing_rating` real,
	`listing_review_count` integer,
	`listing_photos_count` integer DEFAULT 0 NOT NULL,
	`terrain_photos` text NOT NULL,
	`same_as` text NOT NULL,
	`payment_setup` integer DEFAULT false NOT NULL,
	`payment_account_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `merchants_status` ON `merchants` (`status`);--> statement-breakpoint
CREATE INDEX `merchants_siret` ON `merchants` (`siret`);--> statement-breakpoint
CREATE TABLE `products` (
	`product_id` text PRIMARY KEY NOT NULL,
	`brick_id` text NOT NULL,
	`ab_id` text NOT NULL,
	`slug` text NOT NULL,
	`brick_type` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`price_cents` integer,
	`currency` text DEFAULT 'EUR' NOT NULL,
	`pricing_model` text NOT NULL,
	`inventory_status` text NOT NULL,
	`image_url` text,
	`external_url` text,
	`tags` text NOT NULL,
	`is_locked` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `products_merchant` ON `products` (`ab_id`,`position`);--> statement-breakpoint
CREATE UNIQUE INDEX `products_brick` ON `products` (`brick_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `products_merchant_slug` ON `products` (`ab_id`,`slug`);--> statement-breakpoint
CREATE TABLE `qa_clusters` (
	`cluster_id` text PRIMARY KEY NOT NULL,
	`ab_id` text NOT NULL,
	`label` text NOT NULL,
	`type` text NOT NULL,
	`scope` text NOT NULL,
	`brick_id` text,
	`position` integer NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `qa_clusters_merchant` ON `qa_clusters` (`ab_id`,`position`);--> statement-breakpoint
CREATE TABLE `qa_nodes` (
	`node_id` text PRIMARY KEY NOT NULL,
	`cluster_id` text NOT NULL,
	`intent` text NOT NULL,
	`question` text NOT NULL,
	`answer` text NOT NULL,
	`answer_bluf` text NOT NULL,
	`claim_sentence` text DEFAULT '' NOT NULL,
	`verification_level` text NOT NULL,
	`fact_level` text NOT NULL,
	`fact_source_url` text,
	`edited_by_merchant` integer DEFAULT false NOT NULL,
	`drift_severity` text,
	`human_verified_at` text,
	`position` integer NOT NULL,
	FOREIGN KEY (`cluster_id`) REFERENCES `qa_clusters`(`cluster_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `qa_nodes_cluster` ON `qa_nodes` (`cluster_id`,`position`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `signals` (
	`ab_id` text NOT NULL,
	`key` text NOT NULL,
	`status` text NOT NULL,
	`proof_status` text NOT NULL,
	`source` text NOT NULL,
	`source_url` text,
	`value` text,
	`verified_at` text,
	`recorded_at` text NOT NULL,
	`expires_at` text,
	PRIMARY KEY(`ab_id`, `key`),
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `territorial_proofs` (
	`ab_id` text PRIMARY KEY NOT NULL,
	`latitude` real,
	`longitude` real,
	`insee_code` text,
	`postal_code` text,
	`city_normalized` text,
	`geocoding_source` text,
	`geocoding_score` real,
	`verified` integer DEFAULT false NOT NULL,
	`verified_at` text,
	`population` integer,
	`department_code` text,
	`region_code` text,
	`epci_code` text,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE cascade
);
