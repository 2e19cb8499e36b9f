/**
 * The storage this part of the domain needs (a port): src/store/platform-contact-repository.ts implements it.
 */

/** Messages to the platform team: stored with their outbox row in one transaction. */
export interface NewPlatformContact {
  contactId: string;
  type: string;
  name: string;
  email: string;
  phone: string | null;
  company: string | null;
  message: string;
  createdAt: string;
}

export interface PlatformContact extends NewPlatformContact {
  status: string;
  anonymizedAt: string | null;
}

export interface PlatformContactRepository {
  insert(contact: NewPlatformContact, outboxMessageId: string): Promise<void>;
  find(contactId: string): Promise<PlatformContact | null>;
}
