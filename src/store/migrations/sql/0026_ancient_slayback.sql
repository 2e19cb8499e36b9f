ALTER TABLE `store_revision` ADD `deferred_touches` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
DROP TRIGGER `merchants_insert_touch`;
--> statement-breakpoint
CREATE TRIGGER `merchants_insert_touch` AFTER INSERT ON `merchants` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `merchants_update_touch`;
--> statement-breakpoint
CREATE TRIGGER `merchants_update_touch` AFTER UPDATE ON `merchants` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `merchants_delete_touch`;
--> statement-breakpoint
CREATE TRIGGER `merchants_delete_touch` AFTER DELETE ON `merchants` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `signals_insert_touch`;
--> statement-breakpoint
CREATE TRIGGER `signals_insert_touch` AFTER INSERT ON `signals` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `signals_update_touch`;
--> statement-breakpoint
CREATE TRIGGER `signals_update_touch` AFTER UPDATE ON `signals` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `signals_delete_touch`;
--> statement-breakpoint
CREATE TRIGGER `signals_delete_touch` AFTER DELETE ON `signals` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `products_insert_touch`;
--> statement-breakpoint
CREATE TRIGGER `products_insert_touch` AFTER INSERT ON `products` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `products_update_touch`;
--> statement-breakpoint
CREATE TRIGGER `products_update_touch` AFTER UPDATE ON `products` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `products_delete_touch`;
--> statement-breakpoint
CREATE TRIGGER `products_delete_touch` AFTER DELETE ON `products` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `territorial_proofs_insert_touch`;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_insert_touch` AFTER INSERT ON `territorial_proofs` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `territorial_proofs_update_touch`;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_update_touch` AFTER UPDATE ON `territorial_proofs` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `territorial_proofs_delete_touch`;
--> statement-breakpoint
CREATE TRIGGER `territorial_proofs_delete_touch` AFTER DELETE ON `territorial_proofs` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `qa_clusters_insert_touch`;
--> statement-breakpoint
CREATE TRIGGER `qa_clusters_insert_touch` AFTER INSERT ON `qa_clusters` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `qa_clusters_update_touch`;
--> statement-breakpoint
CREATE TRIGGER `qa_clusters_update_touch` AFTER UPDATE ON `qa_clusters` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT NEW.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `qa_clusters_delete_touch`;
--> statement-breakpoint
CREATE TRIGGER `qa_clusters_delete_touch` AFTER DELETE ON `qa_clusters` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT OLD.`ab_id`, `revision` FROM `store_revision` WHERE `id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `qa_nodes_insert_touch`;
--> statement-breakpoint
CREATE TRIGGER `qa_nodes_insert_touch` AFTER INSERT ON `qa_nodes` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT c.`ab_id`, r.`revision` FROM `qa_clusters` c, `store_revision` r WHERE c.`cluster_id` = NEW.`cluster_id` AND r.`id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `qa_nodes_update_touch`;
--> statement-breakpoint
CREATE TRIGGER `qa_nodes_update_touch` AFTER UPDATE ON `qa_nodes` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT c.`ab_id`, r.`revision` FROM `qa_clusters` c, `store_revision` r WHERE c.`cluster_id` = NEW.`cluster_id` AND r.`id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
--> statement-breakpoint
DROP TRIGGER `qa_nodes_delete_touch`;
--> statement-breakpoint
CREATE TRIGGER `qa_nodes_delete_touch` AFTER DELETE ON `qa_nodes` WHEN (SELECT `deferred_touches` FROM `store_revision` WHERE `id` = 1) = 0 BEGIN UPDATE `store_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; INSERT INTO `merchant_touches` (`ab_id`, `touch`) SELECT c.`ab_id`, r.`revision` FROM `qa_clusters` c, `store_revision` r WHERE c.`cluster_id` = OLD.`cluster_id` AND r.`id` = 1 ON CONFLICT (`ab_id`) DO UPDATE SET `touch` = excluded.`touch`; END;
