import { randomUUID } from "node:crypto";
import { logger } from "../../logging.ts";
import type { PlatformContactRequest } from "../../schemas/platform-contact.ts";
import type { PlatformContactRepository } from "./platform-contact-store.ts";

export interface PlatformContactDeps {
  platformContacts: PlatformContactRepository;
  now: () => Date;
  notifyOutbox: () => void;
}

export interface PlatformContactReceipt {
  contact_id: string;
  status: "received";
}

/**
 * POST /api/contact/platform and the MCP tool contact_service: stores the message and its outbox
 * row in one transaction; the worker emails it to the platform team (PLATFORM_TEAM_EMAIL).
 */
export async function submitPlatformContact(
  deps: PlatformContactDeps,
  request: PlatformContactRequest,
): Promise<PlatformContactReceipt> {
  const contactId = randomUUID();
  await deps.platformContacts.insert(
    {
      contactId,
      type: request.type,
      name: request.name,
      email: request.email,
      phone: request.phone ?? null,
      company: request.company ? request.company : null,
      message: request.message,
      createdAt: deps.now().toISOString(),
    },
    randomUUID(),
  );
  deps.notifyOutbox();
  logger.info("platform contact received", { contact_id: contactId, type: request.type });
  return { contact_id: contactId, status: "received" };
}
