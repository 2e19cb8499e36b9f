/**
 * The PostgreSQL tables: each table of src/store/schema.ts, derived from it when this module loads
 * (derive-schema.ts), under the name SQLite's schema exports it by. What drizzle-kit reads to write
 * the PostgreSQL migrations (drizzle.pg.config.ts), and what the PostgreSQL-only code that still
 * builds queries with drizzle's pg dialect takes. A table added to src/store/schema.ts is named
 * here too (test/unit/store-postgres-schema.test.ts says which one is missing); its columns,
 * keys and indexes are described there only.
 */
import * as sqlite from "../schema.ts";
import { postgresTable } from "./derive-schema.ts";

export const agents = postgresTable(sqlite.agents);
export const attributionSessions = postgresTable(sqlite.attributionSessions);
export const deploymentFiles = postgresTable(sqlite.deploymentFiles);
export const idempotencyKeys = postgresTable(sqlite.idempotencyKeys);
export const keptCardCursors = postgresTable(sqlite.keptCardCursors);
export const keptCards = postgresTable(sqlite.keptCards);
export const leadDedupWindows = postgresTable(sqlite.leadDedupWindows);
export const leadEmailConfirmations = postgresTable(sqlite.leadEmailConfirmations);
export const leadMessages = postgresTable(sqlite.leadMessages);
export const leads = postgresTable(sqlite.leads);
export const letterCodes = postgresTable(sqlite.letterCodes);
export const merchantChanges = postgresTable(sqlite.merchantChanges);
export const merchantClaims = postgresTable(sqlite.merchantClaims);
export const merchantEvents = postgresTable(sqlite.merchantEvents);
export const merchantTouches = postgresTable(sqlite.merchantTouches);
export const merchants = postgresTable(sqlite.merchants);
export const officialRowDigests = postgresTable(sqlite.officialRowDigests);
export const orders = postgresTable(sqlite.orders);
export const outbox = postgresTable(sqlite.outbox);
export const platformContacts = postgresTable(sqlite.platformContacts);
export const proSessions = postgresTable(sqlite.proSessions);
export const proSignIns = postgresTable(sqlite.proSignIns);
export const products = postgresTable(sqlite.products);
export const qaClusters = postgresTable(sqlite.qaClusters);
export const qaNodes = postgresTable(sqlite.qaNodes);
export const settings = postgresTable(sqlite.settings);
export const signals = postgresTable(sqlite.signals);
export const spaceNotices = postgresTable(sqlite.spaceNotices);
export const spaceSignInLinks = postgresTable(sqlite.spaceSignInLinks);
export const storeRevision = postgresTable(sqlite.storeRevision);
export const territorialProofs = postgresTable(sqlite.territorialProofs);
export const trustSweeps = postgresTable(sqlite.trustSweeps);
