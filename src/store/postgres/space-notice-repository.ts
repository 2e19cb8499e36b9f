/**
 * The notices of a change written on PostgreSQL (noticeWrites, src/store/space-notice-repository.ts)
 * on the change's own connection, for the PostgreSQL repositories that write notices and are not
 * shared yet.
 */
import type pg from "pg";
import type { SpaceNotice } from "../../domain/merchant-space/space-store.ts";
import { noticeWrites } from "../space-notice-repository.ts";
import { runAwaiting } from "../store-db.ts";
import { storeDbOn } from "./store-db.ts";

/** Writes a change's notices on `client`, inside its transaction; answers the lead address's notice id. */
export function insertNoticeOn(client: pg.PoolClient, notice: SpaceNotice): Promise<string | null> {
  return runAwaiting(noticeWrites(storeDbOn(client), notice));
}
