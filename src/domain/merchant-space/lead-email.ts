import { randomUUID } from "node:crypto";
import { ServiceError, validationError } from "../../errors/service-error.ts";
import { merchantUpdateSchema } from "../../schemas/merchant-declaration.ts";
import { parseInput } from "../../schemas/parse.ts";
import { frenchDateTime, type RenderedEmail, renderLayout } from "../leads/email-format.ts";
import { PLATFORM_SIGNATURE } from "../leads/render-lead-notification.ts";
import { loadRegistered, readRegistered } from "../merchants/load-registered.ts";
import type { CommuneLookup, MerchantLifecycleDeps, MerchantRegistryView } from "../merchants/merchant-registry.ts";
import { updateMerchant } from "../merchants/update-merchant.ts";
import type { LeadEmailConfirmation, LeadEmailConfirmationStore, WaitingChange } from "./lead-email-store.ts";
import { LEAD_EMAIL_TOKEN, type LeadEmailTokens } from "./lead-email-token.ts";
import type { ListingAccess } from "./listing-edits.ts";
import { leadEmailNotice, sameEmailAddress } from "./space-notices.ts";

/**
 * The email where a merchant's leads go, set from its space: the address is used only once a link
 * sent to it has been opened (single use, expiring, its token kept hashed), so a typo or a
 * stranger's address never receives a person's request. Confirmed, the change is told to the
 * address in force and the listing's other claimants (space-notices.ts), and takes effect once the
 * notice to the address in force is sent: until then leads keep going there. With no address in
 * force it takes effect at once. An operator's `merchants update` sets it at once, told all the
 * same (docs/decisions.md, "Issue 36: notices of claims and lead email changes").
 */
export const LEAD_EMAIL_LINK_HOURS = 48;

export interface LeadEmailDeps extends MerchantLifecycleDeps {
  confirmations: LeadEmailConfirmationStore;
  tokens: LeadEmailTokens;
  /** Wakes the outbox worker (the confirmation email, the notices). */
  notifyOutbox?: () => void;
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
  if (merchant.email !== null && sameEmailAddress(merchant.email, email)) {
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

/** What a confirmed link did: the address is used now, waits for the notice to the one in force, or was already in force. */
export type LeadEmailConfirmed =
  | { abId: string; email: string; outcome: "applied" | "unchanged" }
  | { abId: string; email: string; outcome: "waiting"; current: string };

/**
 * Confirms a link (its page's button): checked and written in one store transaction, so a claim
 * revoked, a link replaced or expired meanwhile changes nothing. A link is refused when unknown, of
 * another listing, used, replaced by a later one, expired, or asked through a claim revoked since.
 * The change is recorded under the claim that asked; it waits for the notice to the address in
 * force (none: it applies at once, through the operator's door, with its notice to the claimants).
 */
export async function confirmLeadEmail(deps: LeadEmailDeps, abId: string, token: string): Promise<LeadEmailConfirmed> {
  if (!LEAD_EMAIL_TOKEN.test(token)) throw invalidLink();
  const asked = await deps.confirmations.findByTokenHash(deps.tokens.hash(token));
  if (!asked || asked.abId !== abId) throw invalidLink();
  const at = deps.now().toISOString();
  const confirmed = await deps.confirmations.confirm<LeadEmailConfirmed>(
    asked.confirmationId,
    at,
    (found, registry) => {
      if (!found) throw invalidLink();
      const { confirmation } = found;
      const refusal = whyNotUsable(confirmation, at) ?? (found.claimLive ? null : "revoked");
      if (refusal) throw new LinkRefusedError(refusal);
      const { merchant } = loadRegistered({ registry }, abId);
      const email = confirmation.email;
      if (sameEmailAddress(merchant.email, email)) {
        return { result: { abId, email, outcome: "unchanged" }, waitFor: null };
      }
      if (merchant.email === null) {
        updateMerchant({ ...deps, registry, now: () => new Date(at) }, abId, { email }, confirmation.requestedBy);
        return { result: { abId, email, outcome: "applied" }, waitFor: null };
      }
      const waitFor = leadEmailNotice({
        abId,
        at,
        actor: confirmation.requestedBy,
        fromEmail: merchant.email,
        toEmail: email,
        confirmationId: confirmation.confirmationId,
      });
      return { result: { abId, email, outcome: "waiting", current: merchant.email }, waitFor };
    },
  );
  deps.notifyOutbox?.();
  return confirmed;
}

function invalidLink(): ServiceError {
  return new ServiceError(
    "NOT_FOUND",
    "This confirmation link is not valid; ask for a new one from the merchant space",
  );
}

function whyNotUsable(confirmation: LeadEmailConfirmation, nowIso: string): LinkRefusal | null {
  if (confirmation.confirmedAt) return "used";
  if (confirmation.withdrawnAt) return "replaced";
  if (confirmation.expiresAt <= nowIso) return "expired";
  return null;
}

/** An email change reads no commune (only an address change does). */
const NO_COMMUNES: CommuneLookup = {
  find() {
    throw new Error("a lead email change reads no commune");
  },
};

const APPLIED_AFTER: Record<"sent" | "failed", string> = {
  sent: "applied once its notice to the previous lead address was sent",
  failed:
    "applied after the last attempt to deliver its notice to the previous lead address failed: that address was not told",
};

/**
 * The outbox settled the notice a confirmed change waited for (called by the store inside the
 * settling's transaction): sent, the new address takes effect; failed for good after its retries,
 * it takes effect too (a dead old address must not hold the change forever), the audit event
 * saying the old address was not told. It does not apply (false: the store withdraws it) when its
 * claim was revoked meanwhile, when the address in force is no longer the one told (changed
 * since), or when the listing can no longer be edited.
 */
export function applyWaitingLeadEmail(
  registry: MerchantRegistryView,
  waiting: WaitingChange,
  delivery: "sent" | "failed",
  at: string,
): boolean {
  const { confirmation } = waiting;
  if (!waiting.claimLive) return false;
  const current = registry.find(confirmation.abId);
  if (!current || !sameEmailAddress(current.merchant.email, waiting.toldAddress)) return false;
  try {
    return registry.row(() => {
      updateMerchant(
        { registry, communes: NO_COMMUNES, now: () => new Date(at) },
        confirmation.abId,
        { email: confirmation.email },
        confirmation.requestedBy,
        { alreadyTold: true, reason: APPLIED_AFTER[delivery] },
      );
      return true;
    });
  } catch (failure) {
    if (failure instanceof ServiceError) return false;
    throw failure;
  }
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
          `Le lien sert une seule fois et expire le ${frenchDateTime(input.expiresAt)}. Tant qu'il n'est pas ouvert, les demandes continuent d'arriver à l'adresse actuelle ; une fois confirmée, l'adresse actuelle est prévenue du changement, et les demandes arrivent ici dès que ce message est parti.`,
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
