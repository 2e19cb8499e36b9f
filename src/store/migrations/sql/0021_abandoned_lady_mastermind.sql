CREATE TABLE `deployment_files` (
	`name` text PRIMARY KEY NOT NULL,
	`sha256` text NOT NULL,
	`recorded_at` text NOT NULL,
	`recorded_by` text NOT NULL
);
