CREATE TABLE `official_row_digests` (
	`ab_id` text PRIMARY KEY NOT NULL,
	`digest` text NOT NULL,
	`revision` integer NOT NULL,
	FOREIGN KEY (`ab_id`) REFERENCES `merchants`(`ab_id`) ON UPDATE no action ON DELETE cascade
);
