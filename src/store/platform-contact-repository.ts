/** Messages to the platform's team, on both engines: the contact and its outbox row in one transaction. */
import type { PlatformContactRepository } from "../domain/platform-contact/platform-contact-store.ts";
import { outbox, platformContacts } from "./schema.ts";
import { byKey, inTransaction, run, type StoreDb } from "./store-db.ts";

export type {
  NewPlatformContact,
  PlatformContact,
  PlatformContactRepository,
} from "../domain/platform-contact/platform-contact-store.ts";

export function createPlatformContactRepository(db: StoreDb): PlatformContactRepository {
  const byId = byKey(db, platformContacts, platformContacts.contactId, "contactId");
  return {
    insert: (contact, outboxMessageId) =>
      inTransaction(db, function* (tx) {
        yield* run(tx.insert(platformContacts).values({ ...contact, status: "received" }));
        yield* run(
          tx.insert(outbox).values({
            messageId: outboxMessageId,
            kind: "platform_contact",
            subjectId: contact.contactId,
            status: "pending",
            attempts: 0,
            nextAttemptAt: contact.createdAt,
            createdAt: contact.createdAt,
          }),
        );
      }),
    async find(contactId) {
      return (await byId.get({ contactId })) ?? null;
    },
  };
}
