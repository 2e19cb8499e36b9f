/** Messages to the platform's team on PostgreSQL: the contact and its outbox row in one transaction. */
import type { PlatformContactRepository } from "../../domain/platform-contact/platform-contact-store.ts";
import type { Asynchronous } from "./asynchronous.ts";
import { eq } from "./drizzle.ts";
import { outbox, platformContacts } from "./schema.ts";
import type { PostgresStore } from "./store.ts";

export function createPostgresPlatformContactRepository({
  db,
}: PostgresStore): Asynchronous<PlatformContactRepository> {
  return {
    insert: (contact, outboxMessageId) =>
      db.transaction(async (tx) => {
        await tx.insert(platformContacts).values({ ...contact, status: "received" });
        await tx.insert(outbox).values({
          messageId: outboxMessageId,
          kind: "platform_contact",
          subjectId: contact.contactId,
          status: "pending",
          attempts: 0,
          nextAttemptAt: contact.createdAt,
          createdAt: contact.createdAt,
        });
      }),
    async find(contactId) {
      const [row] = await db.select().from(platformContacts).where(eq(platformContacts.contactId, contactId));
      return row ?? null;
    },
  };
}
