ALTER TABLE `qa_nodes` ADD `fact_signal` text;--> statement-breakpoint
-- Written by hand: answers a merchant vouched for from its space before verification_level
-- 'merchant_reviewed' existed were recorded 'human_verified'; the audit log's qa_reviewed events (the
-- merchant space is their only writer) name them, so a merchant's review no longer reads as a
-- reviewer's (src/domain/merchants/review-qa-answer.ts).
UPDATE `qa_nodes` SET `verification_level` = 'merchant_reviewed' WHERE `verification_level` = 'human_verified' AND EXISTS (SELECT 1 FROM `merchant_events` e JOIN `qa_clusters` c ON c.`ab_id` = e.`ab_id` WHERE c.`cluster_id` = `qa_nodes`.`cluster_id` AND e.`action` = 'qa_reviewed' AND e.`changes` LIKE '%"qa.' || `qa_nodes`.`node_id` || '.human_verified_at"%');
