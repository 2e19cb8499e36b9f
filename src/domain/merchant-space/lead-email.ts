import { randomUUID } from "node:crypto";
import { ServiceError, validationError } from "../../errors/service-error.ts";
import { merchantUpdateSchema } from "../../schemas/merchant-declaration.ts";
import { parseInput } from "../../schemas/parse.ts";
import { frenchDateTime, type RenderedEmail, renderLayout } from "../leads/email-format.ts";
import { PLATFORM_SIGNATURE } from "../leads/render-lead-notification.ts";
import { readRegistered } from "../merchants/load-registered.ts";
import type { MerchantLifecycleDeps } from "../merchants/merchant-registry.ts";
import { updateMerchant } from "../merchants/update-merchant.ts";
import type { LeadEmailConfirmation, LeadEmailConfirmationStore } from "./lead-email-store.ts";
import { LEAD_EMAIL_TOKEN, type LeadEmailTokens } from "./lead-email-token.ts";
import type { ListingAccess } from "./listing-edits.ts";

/**
 * The email where a merchant's leads go, set from its space: the address is used only once a link
 * sent to it has been opened (single use, expiring, its token kept hashed), so a typo or a
 * stranger's address never receives a person's request. Until then leads keep going to the
 * current email, or to none (docs/decisions.md); an operator's `merchants update` sets it at once,
 * as before.
 */
export const LEAD_EMAIL_LINK_HOURS = 48;

export interface LeadEmailDeps extends MerchantLifecycleDeps {
  confirmations: LeadEmailConfirmationStore;
  tokens: LeadEmailTokens;
  /** Wakes the outbox worker (the confirmation email). */
  notifyOutbox?: () => void;
  /**
   * Whether the actor who asked (`merchant:<claimId>`) still holds its claim: a link asked for
   * through a claim revoked since changes nothing.
   */
  stillEntitled: (requestedBy: string) => Promise<boolean>;
}

/** Where the link of a confirmation points (a page of the listing's space). */
export function leadEmailConfirmationPath(abId: string, token: string): string {
  return `/pro/${abId}/e-mail/confirmer?jeton=${token}`;
}

/** Why a link that exists cannot be used; the page words each in French (src/publish/pro/). */
export type LinkRefusal = "used" | "replaced" | "expired" | "revoked";

const LINK_REFUSALS: Record<LinkRefusal, string> = {
  used: "This confirmation link was already used",
  replaced: "This confirmation link was replaced by a later request; use the latest email",
  expired: "This confirmation link has expired; ask for a new one from the merchant space",
  revoked: "This confirmation link was asked for through a claim revoked since",
};

export class LinkRefusedError extends ServiceError {
  readonly refusal: LinkRefusal;
  constructor(refusal: LinkRefusal) {
    super("CONFLICT", LINK_REFUSALS[refusal]);
    this.refusal = refusal;
  }
}

export type LeadEmailRequest =
  | { outcome: "already_current"; email: string }
  | { outcome: "link_sent"; email: string; expiresAt: string };

/** Records the merchant's new lead email as waiting and queues the email with its link. */
export async function requestLeadEmail(
  deps: LeadEmailDeps,
  access: ListingAccess,
  input: unknown,
): Promise<LeadEmailRequest> {
  const { email } = parseInput(merchantUpdateSchema, { email: input });
  if (email === null || email === undefined) throw validationError([{ path: "email", message: "is required" }]);
  const { merchant } = await readRegistered(deps, access.abId);
  if (merchant.email !== null && merchant.email.toLowerCase() === email.toLowerCase()) {
    return { outcome: "already_current", email: merchant.email };
  }
  const now = deps.now();
  const confirmationId = randomUUID();
  const expiresAt = new Date(now.getTime() + LEAD_EMAIL_LINK_HOURS * 3_600_000).toISOString();
  await deps.confirmations.request(
    {
      confirmationId,
      abId: access.abId,
      email,
      tokenHash: deps.tokens.hash(deps.tokens.issue(confirmationId)),
      requestedBy: access.actor,
      createdAt: now.toISOString(),
      expiresAt,
    },
    randomUUID(),
  );
  deps.notifyOutbox?.();
  return { outcome: "link_sent", email, expiresAt };
}

/**
 * Opens a confirmation link: the waiting email becomes the lead email, through the operator's
 * door with the merchant who asked as the actor. A link is refused when unknown, of another
 * listing, used, replaced by a later one, or expired; nothing is written then.
 */
export async function confirmLeadEmail(
  deps: LeadEmailDeps,
  abId: string,
  token: string,
): Promise<{ abId: string; email: string; changed: boolean }> {
  const invalid = () =>
    new ServiceError("NOT_FOUND", "This confirmation link is not valid; ask for a new one from the merchant space");
  if (!LEAD_EMAIL_TOKEN.test(token)) throw invalid();
  const confirmation = await deps.confirmations.findByTokenHash(deps.tokens.hash(token));
  if (!confirmation || confirmation.abId !== abId) throw invalid();
  const refusal = whyNotUsable(confirmation, deps.now().toISOString());
  if (refusal) throw new LinkRefusedError(refusal);
  if (!(await deps.stillEntitled(confirmation.requestedBy))) throw new LinkRefusedError("revoked");
  const nowIso = deps.now().toISOString();
  // The link is spent and the email written together, or neither (docs/decisions.md).
  const confirmed = await deps.confirmations.confirm(confirmation.confirmationId, nowIso, (registry) => {
    const updated = updateMerchant(
      { ...deps, registry },
      abId,
      { email: confirmation.email },
      confirmation.requestedBy,
    );
    return { abId, email: confirmation.email, changed: updated.changed.length > 0 };
  });
  if (!confirmed.confirmed) throw new LinkRefusedError("used");
  return confirmed.result;
}

function whyNotUsable(confirmation: LeadEmailConfirmation, nowIso: string): LinkRefusal | null {
  if (confirmation.confirmedAt) return "used";
  if (confirmation.withdrawnAt) return "replaced";
  if (confirmation.expiresAt <= nowIso) return "expired";
  return null;
}

/** The French email that carries the link (sent to the address being confirmed). */
export function renderLeadEmailConfirmation(input: {
  businessName: string;
  email: string;
  link: string;
  expiresAt: string;
}): RenderedEmail {
  const subject = `[Abeille] Confirmez l'adresse des demandes de ${input.businessName}`;
  const { text, html } = renderLayout({
    heading: subject,
    intro: [
      "Bonjour,",
      `Depuis l'espace commerçant d'Abeille, cette adresse (${input.email}) a été indiquée pour recevoir les demandes de clients adressées à ${input.businessName}.`,
    ],
    sections: [
      {
        title: "Confirmer",
        paragraphs: [
          `Ouvrez ce lien pour confirmer : ${input.link}`,
          `Le lien sert une seule fois et expire le ${frenchDateTime(input.expiresAt)}. Tant qu'il n'est pas ouvert, les demandes continuent d'arriver à l'adresse actuelle.`,
        ],
      },
      {
        title: "Ce n'est pas vous ?",
        paragraphs: ["Ignorez cet e-mail : rien ne change sans votre confirmation."],
      },
    ],
    footer: [PLATFORM_SIGNATURE],
  });
  return { subject, text, html };
}
