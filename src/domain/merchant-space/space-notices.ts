import { frenchDateTime, type RenderedEmail, renderLayout } from "../leads/email-format.ts";
import { PLATFORM_SIGNATURE } from "../leads/render-lead-notification.ts";
import { formatSiren, formatSiret } from "../siret.ts";
import type { ClaimRecord, NoticeWhat, SpaceNotice, SpaceVia } from "./space-store.ts";

/**
 * Nobody changes where a listing's leads go, or who manages it, in silence: a claim and a change of
 * the lead email are told, in French, to the lead address in force before the change and to the
 * listing's other claimants, saying what changed, when, by which organisation (never which person)
 * and how to report it (docs/merchant-space.md, "Notices"). A notice is written in the transaction
 * of the change, one row and one outbox email (`space_notice`) per person told; the email is
 * rendered from the row when the outbox sends it.
 */

export type NoticeRecipientRole = "lead_address" | "claimant";

export interface NoticeRecipient {
  email: string;
  role: NoticeRecipientRole;
}

/** One notice as the outbox renders it: the row, its listing and who acted. */
export interface NoticeForDelivery extends SpaceNotice {
  noticeId: string;
  recipient: NoticeRecipient;
  listing: { businessName: string; legalName: string; siret: string; city: string };
  /** How the claim that acted got in, and its company; null: the operators acted. */
  by: { via: SpaceVia; siren: string } | null;
}

/** What the outbox reads of a notice (implemented by src/store/space-notice-repository.ts and its PostgreSQL twin). */
export interface SpaceNoticeStore {
  findForDelivery(noticeId: string): Promise<NoticeForDelivery | null>;
}

/** A claim's notice (made by the one door of claims, recordClaim / newClaim). */
export function claimNotice(claim: Pick<ClaimRecord, "abId" | "claimId" | "createdAt">): SpaceNotice {
  return {
    abId: claim.abId,
    what: "claimed",
    at: claim.createdAt,
    byClaimId: claim.claimId,
    fromEmail: null,
    toEmail: null,
    confirmationId: null,
  };
}

/** The claim behind a merchant actor (`merchant:<claimId>`); null for the operators and imports. */
export function claimIdOfActor(actor: string): string | null {
  return actor.startsWith("merchant:") ? actor.slice("merchant:".length) : null;
}

/** A change of the email where a listing's leads go, by the merchant (its claim) or the operators. */
export function leadEmailNotice(change: {
  abId: string;
  at: string;
  actor: string;
  fromEmail: string | null;
  toEmail: string | null;
  confirmationId?: string;
}): SpaceNotice {
  return {
    abId: change.abId,
    what: "lead_email_changed",
    at: change.at,
    byClaimId: claimIdOfActor(change.actor),
    fromEmail: change.fromEmail,
    toEmail: change.toEmail,
    confirmationId: change.confirmationId ?? null,
  };
}

export function sameEmailAddress(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLowerCase() === b.toLowerCase();
}

/**
 * Who is told, from the listing as the change's transaction reads it: the lead address in force
 * before the change (for a claim, the listing's email now; for a lead email change, the address
 * it replaces), then each live claimant other than the claim that acted, one email per address.
 */
export function noticeRecipients(
  notice: SpaceNotice,
  listing: { email: string | null; claims: readonly Pick<ClaimRecord, "claimId" | "email">[] },
): NoticeRecipient[] {
  const leadAddress = notice.what === "claimed" ? listing.email : notice.fromEmail;
  const told: NoticeRecipient[] = leadAddress ? [{ email: leadAddress, role: "lead_address" }] : [];
  for (const claim of listing.claims) {
    if (claim.claimId === notice.byClaimId || claim.email === null) continue;
    if (told.some((recipient) => sameEmailAddress(recipient.email, claim.email))) continue;
    told.push({ email: claim.email, role: "claimant" });
  }
  return told;
}

const SUBJECTS: Record<NoticeWhat, (businessName: string) => string> = {
  claimed: (name) => `[Abeille] ${name} : la fiche a été revendiquée`,
  lead_email_changed: (name) => `[Abeille] ${name} : l'adresse des demandes change`,
};

/** The notice's French email, to one person told. */
export function renderSpaceNotice(
  notice: NoticeForDelivery,
  contact: { platformTeamEmail: string; spaceUrl: string },
): RenderedEmail {
  const { listing } = notice;
  const subject = SUBJECTS[notice.what](listing.businessName);
  const when = frenchDateTime(notice.at);
  const why =
    notice.recipient.role === "lead_address"
      ? `Vous recevez ce message parce que cette adresse reçoit les demandes de clients adressées à ${listing.businessName} sur Abeille, le registre des commerçants vérifiés.`
      : `Vous recevez ce message parce que vous gérez la fiche ${listing.businessName} dans l'espace professionnel d'Abeille.`;
  const changed =
    notice.what === "claimed"
      ? [
          {
            label: "Changement",
            value:
              "la fiche a été revendiquée dans l'espace professionnel : la personne qui l'a revendiquée peut désormais la modifier (coordonnées, horaires, produits, adresse des demandes) et répondre aux demandes",
          },
        ]
      : [
          { label: "Changement", value: "l'adresse qui reçoit les demandes de clients" },
          { label: "Ancienne adresse", value: notice.fromEmail ?? "aucune" },
          { label: "Nouvelle adresse", value: notice.toEmail ?? "aucune" },
        ];
  const after =
    notice.what === "claimed"
      ? []
      : [
          notice.recipient.role === "lead_address"
            ? "Les demandes de clients iront désormais à la nouvelle adresse : celle-ci ne les recevra plus."
            : "Les demandes de clients iront désormais à la nouvelle adresse.",
        ];
  const { text, html } = renderLayout({
    heading: subject,
    intro: ["Bonjour,", why],
    sections: [
      {
        title: "Ce qui a changé",
        rows: [
          {
            label: "Fiche",
            value: `${listing.businessName} (${notice.abId}), SIRET ${formatSiret(listing.siret)}, ${listing.city}`,
          },
          ...changed,
          { label: "Date", value: when },
          { label: "Par", value: whoActed(notice) },
        ],
        paragraphs: after,
      },
      {
        title: "Ce changement vous surprend ?",
        paragraphs: [
          `Si ni vous ni une personne de votre entreprise n'en êtes à l'origine, écrivez à ${contact.platformTeamEmail} en indiquant la fiche (${listing.businessName}, ${notice.abId}) et la date du changement (${when}). L'équipe vérifiera, pourra retirer l'accès à la fiche et rétablir ce qui a été changé.`,
        ],
      },
    ],
    footer: [PLATFORM_SIGNATURE, `Espace professionnel : ${contact.spaceUrl}`],
  });
  return { subject, text, html };
}

/** The organisation that acted, never the person: what the claim proved, or the operators. */
function whoActed(notice: NoticeForDelivery): string {
  if (notice.by === null) return "l'équipe d'Abeille";
  if (notice.by.via === "letter") {
    return "une personne qui a saisi le code d'un courrier envoyé par Abeille à l'adresse de l'établissement inscrite au répertoire SIRENE";
  }
  return `une personne identifiée par ProConnect pour l'entreprise ${notice.listing.legalName} (SIREN ${formatSiren(notice.by.siren)})`;
}
