import type {
  NewPlatformContact,
  PlatformContactRepository,
} from "../domain/platform-contact/platform-contact-store.ts";
import type { StoreConnection } from "./connection.ts";

export type {
  NewPlatformContact,
  PlatformContact,
  PlatformContactRepository,
} from "../domain/platform-contact/platform-contact-store.ts";

interface ContactRow {
  contact_id: string;
  type: string;
  name: string;
  email: string;
  phone: string | null;
  company: string | null;
  message: string;
  status: string;
  created_at: string;
  anonymized_at: string | null;
}

export function createPlatformContactRepository(db: StoreConnection): PlatformContactRepository {
  const sqlite = db.$client;
  const insertContact = sqlite.prepare(
    `INSERT INTO platform_contacts (contact_id, type, name, email, phone, company, message, status, created_at)
     VALUES (@contactId, @type, @name, @email, @phone, @company, @message, 'received', @createdAt)`,
  );
  const insertOutbox = sqlite.prepare(
    `INSERT INTO outbox (message_id, kind, subject_id, status, attempts, next_attempt_at, created_at)
     VALUES (?, 'platform_contact', ?, 'pending', 0, ?, ?)`,
  );
  const byId = sqlite.prepare<[string], ContactRow>("SELECT * FROM platform_contacts WHERE contact_id = ?");
  const insertTx = sqlite.transaction((contact: NewPlatformContact, outboxMessageId: string) => {
    insertContact.run(contact);
    insertOutbox.run(outboxMessageId, contact.contactId, contact.createdAt, contact.createdAt);
  });
  return {
    insert: async (contact, outboxMessageId) => insertTx.immediate(contact, outboxMessageId),
    async find(contactId) {
      const row = byId.get(contactId);
      if (!row) return null;
      return {
        contactId: row.contact_id,
        type: row.type,
        name: row.name,
        email: row.email,
        phone: row.phone,
        company: row.company,
        message: row.message,
        status: row.status,
        createdAt: row.created_at,
        anonymizedAt: row.anonymized_at,
      };
    },
  };
}
