CREATE TABLE `merchant_touches` (
	`ab_id` text PRIMARY KEY NOT NULL,
	`touch` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `merchant_touches_touch` ON `merchant_touches` (`touch`);
--> statement-breakpoint
DROP TRIGGER `merchants_insert_revision`;
--> statement-breakpoint
DROP TRIGGER `merchants_update_revision`;
--> statement-breakpoint
DROP TRIGGER `merchants_delete_revision`;
--> statement-breakpoint
DROP TRIGGER `signals_insert_revision`;
--> statement-breakpoint
DROP TRIGGER `signals_update_revision`;
--> statement-breakpoint
DROP TRIGGER `signals_delete_revision`;
--> statement-breakpoint
DROP TRIGGER `products_insert_revision`;
--> statement-breakpoint
DROP TRIGGER `products_update_revision`;
--> statement-breakpoint
DROP TRIGGER `products_delete_revision`;
--> statement-breakpoint
DROP TRIGGER `territorial_proofs_insert_revision`;
--> statement-breakpoint
DROP TRIGGER `territorial_proofs_update_revision`;
--> statement-breakpoint
DROP TRIGGER `territorial_proofs_delete_revision`;
--> statement-breakpoint
CREATE TRIGGER `merchants_insert_touch` AFTER INSERT ON `merchants` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `merchants_update_touch` AFTER UPDATE ON `merchants` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `merchants_delete_touch` AFTER DELETE ON `merchants` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `signals_insert_touch` AFTER INSERT ON `signals` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `signals_update_touch` AFTER UPDATE ON `signals` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `signals_delete_touch` AFTER DELETE ON `signals` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `products_insert_touch` AFTER INSERT ON `products` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `products_update_touch` AFTER UPDATE ON `products` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `products_delete_touch` AFTER DELETE ON `products` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_insert_touch` AFTER INSERT ON `territorial_proofs` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_update_touch` AFTER UPDATE ON `territorial_proofs` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_delete_touch` AFTER DELETE ON `territorial_proofs` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `qa_clusters_insert_touch` AFTER INSERT ON `qa_clusters` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `qa_clusters_update_touch` AFTER UPDATE ON `qa_clusters` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `qa_clusters_delete_touch` AFTER DELETE ON `qa_clusters` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `qa_nodes_insert_touch` AFTER INSERT ON `qa_nodes` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT c.`ab_id`, r.`revision` FROM `qa_clusters` c, `store_revision` r WHERE c.`cluster_id` = NEW.`cluster_id` AND r.`id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `qa_nodes_update_touch` AFTER UPDATE ON `qa_nodes` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT c.`ab_id`, r.`revision` FROM `qa_clusters` c, `store_revision` r WHERE c.`cluster_id` = NEW.`cluster_id` AND r.`id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
CREATE TRIGGER `qa_nodes_delete_touch` AFTER DELETE ON `qa_nodes` BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT c.`ab_id`, r.`revision` FROM `qa_clusters` c, `store_revision` r WHERE c.`cluster_id` = OLD.`cluster_id` AND r.`id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
