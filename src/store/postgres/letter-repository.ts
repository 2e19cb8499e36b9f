/**
 * The letters' codes on PostgreSQL: the shared repository (src/store/letter-repository.ts), its
 * claims written on the spend's own connection by the PostgreSQL merchant space (insertClaimOn)
 * until that repository is shared too.
 */
import type { LetterStore } from "../../domain/merchant-space/letter-store.ts";
import { createLetterRepository } from "../letter-repository.ts";
import { step } from "../store-db.ts";
import { insertClaimOn } from "./merchant-space-repository.ts";
import type { PostgresStore } from "./store.ts";
import { connectionOf } from "./store-db.ts";

export function createPostgresLetterRepository({ storeDb }: PostgresStore): LetterStore {
  return createLetterRepository(storeDb, function* (tx, claim, event, notice) {
    return yield* step(() => insertClaimOn(connectionOf(tx), claim, event, notice));
  });
}
