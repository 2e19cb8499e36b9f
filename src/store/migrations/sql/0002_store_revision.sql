CREATE TABLE `store_revision` (
	`id` integer PRIMARY KEY NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `store_revision` (`id`, `revision`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `merchants_insert_revision` AFTER INSERT ON `merchants` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `merchants_update_revision` AFTER UPDATE ON `merchants` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `merchants_delete_revision` AFTER DELETE ON `merchants` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `signals_insert_revision` AFTER INSERT ON `signals` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `signals_update_revision` AFTER UPDATE ON `signals` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `signals_delete_revision` AFTER DELETE ON `signals` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `products_insert_revision` AFTER INSERT ON `products` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `products_update_revision` AFTER UPDATE ON `products` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `products_delete_revision` AFTER DELETE ON `products` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_insert_revision` AFTER INSERT ON `territorial_proofs` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_update_revision` AFTER UPDATE ON `territorial_proofs` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_delete_revision` AFTER DELETE ON `territorial_proofs` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
