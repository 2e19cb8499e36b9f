import { evidenceUrl } from "../domain/links.ts";
import type { QaNode, Signal } from "../domain/merchant.ts";
import { type AnswerFact, type FactConfidence, MERCHANT_REVIEWED } from "../domain/trust/answer-fact.ts";
import {
  isEvidenceSignal,
  type OfficialSourceName,
  type ProofStatus,
  proofStatusFor,
  type SignalDefinition,
  signalDefinition,
  signalPosition,
  type TrustComponent,
} from "../domain/trust/signal-catalog.ts";
import { signalStatusAt } from "../domain/trust/signal-expiry.ts";
import type { MerchantSource } from "../schemas/registry.ts";
import { formatDateFr } from "./format-fr.ts";
import type { MerchantView } from "./view.ts";

/** Facts several documents share, derived once from a merchant view. */

const ROLE_MAILBOXES = new Set([
  "contact",
  "bonjour",
  "hello",
  "info",
  "infos",
  "accueil",
  "commande",
  "commandes",
  "reservation",
  "reservations",
  "devis",
  "rdv",
  "agence",
  "boutique",
  "atelier",
  "cabinet",
  "clinique",
  "garage",
  "salon",
  "service",
  "sav",
  "secretariat",
  "direction",
]);

/**
 * Whether an email address is the business's own (published) rather than a person's. Only a role
 * mailbox (contact@, info@, ...) on the merchant's own website domain counts: a webmail address or
 * a named mailbox is personal data and stays out of public documents; leads reach it anyway.
 */
export function isBusinessEmail(email: string | null, website: string | null): boolean {
  if (!email || !website) return false;
  const at = email.lastIndexOf("@");
  if (at <= 0) return false;
  const local = email.slice(0, at).toLowerCase();
  const domain = email.slice(at + 1).toLowerCase();
  let host: string;
  try {
    host = new URL(website).hostname.toLowerCase();
  } catch {
    return false;
  }
  const siteDomain = host.startsWith("www.") ? host.slice(4) : host;
  return domain === siteDomain && ROLE_MAILBOXES.has(local);
}

export function proofOf(signal: Signal): ProofStatus {
  const recorded = signal.proofStatus;
  if (
    recorded === "official_source_verified" ||
    recorded === "machine_consistent" ||
    recorded === "merchant_declared"
  ) {
    return recorded;
  }
  return proofStatusFor(signal.source);
}

/** Who stands behind a signal: the official register, or the platform's own check, or the merchant. */
const AUTHORITIES: Record<string, { name: string; url: string }> = {
  siret_verified: { name: "INSEE, répertoire SIRENE", url: "https://www.sirene.fr/" },
  company_age_years: { name: "INSEE, répertoire SIRENE", url: "https://www.sirene.fr/" },
  bodacc_clean: { name: "DILA, BODACC", url: "https://www.bodacc.fr/" },
  rne_verified: { name: "INPI, registre national des entreprises", url: "https://data.inpi.fr/" },
  officer_identity: { name: "INPI, registre national des entreprises", url: "https://data.inpi.fr/" },
  territorial_address_verified: { name: "Base Adresse Nationale", url: "https://adresse.data.gouv.fr/" },
  orias_registered: { name: "ORIAS", url: "https://www.orias.fr/" },
  alimconfiance_score: { name: "Ministère de l'Agriculture, Alim'confiance", url: "https://alim-confiance.gouv.fr/" },
};
const PLATFORM = { name: "Abeille, registre des commerçants vérifiés", url: "" };

export function authorityOf(key: string, baseUrl: string): { name: string; url: string } {
  return AUTHORITIES[key] ?? { ...PLATFORM, url: `${baseUrl}/` };
}

export interface EvidenceFact {
  signal: Signal;
  definition: SignalDefinition;
  status: Signal["status"];
  proof: ProofStatus;
  component: TrustComponent;
  /** Points that counted in the score (after the per-component cap). */
  points: number;
  /** The evidence page, for the 26 evidence signals; null otherwise. */
  evidenceUrl: string | null;
}

const factsByView = new WeakMap<MerchantView, EvidenceFact[]>();

/** Every known signal of the merchant in catalog order, with its status now and what it brought (computed once per view). */
export function evidenceFacts(view: MerchantView): EvidenceFact[] {
  let facts = factsByView.get(view);
  if (!facts) {
    facts = computeEvidenceFacts(view);
    factsByView.set(view, facts);
  }
  return facts;
}

function computeEvidenceFacts(view: MerchantView): EvidenceFact[] {
  const { profile, assessment, options } = view;
  const counted = new Map(assessment.trust.contributions.map((item) => [item.signal, item.counted]));
  return [...profile.signals]
    .sort((a, b) => signalPosition(a.key) - signalPosition(b.key))
    .flatMap((signal) => {
      const definition = signalDefinition(signal.key);
      if (!definition) return [];
      return [
        {
          signal,
          definition,
          status: signalStatusAt(signal, options.now.toISOString()),
          proof: proofOf(signal),
          component: definition.component,
          points: counted.get(signal.key) ?? 0,
          evidenceUrl: isEvidenceSignal(signal.key)
            ? evidenceUrl(options.baseUrl, signal.key, profile.merchant.abId)
            : null,
        },
      ];
    });
}

// The rule of which reasons refuse contact lives with the capability rules.
export { contactBlockedBecause } from "../domain/capabilities.ts";

/** The identity check (`siret_verified`) among a merchant's facts, as it stands at the view's instant. */
export function identityFact(facts: readonly EvidenceFact[]): EvidenceFact | undefined {
  return facts.find((fact) => fact.signal.key === "siret_verified");
}

/**
 * The identity check as a page states it: the `siret_verified` signal and its status at the
 * page's instant (signalStatusAt, the one rule). An EvidenceFact is one; a search result's is
 * built with `identityCheckAt`.
 */
export interface IdentityCheck {
  status: string;
  signal: Pick<Signal, "verifiedAt" | "recordedAt" | "expiresAt">;
}

/** A merchant's identity check from its `siret_verified` signal (undefined: never checked). */
export function identityCheckAt(signal: Signal | undefined, nowIso: string): IdentityCheck | undefined {
  return signal ? { status: signalStatusAt(signal, nowIso), signal } : undefined;
}

/**
 * How the documents word the identity check, in French: verified on a date, expired on a date, or
 * not verified. Every document says the same, from the same status (signal-expiry.ts).
 */
export function identityWordingFr(fact: IdentityCheck | undefined): string {
  if (fact?.status === "verified") {
    return `vérifié au répertoire SIRENE le ${formatDateFr(fact.signal.verifiedAt ?? fact.signal.recordedAt)}`;
  }
  if (fact?.status === "expired") {
    return `vérification au répertoire SIRENE expirée le ${formatDateFr(fact.signal.expiresAt)}, à renouveler`;
  }
  return "non vérifié";
}

/** The identity in three words, for a badge or a page's summary. */
export function identityBadgeFr(fact: IdentityCheck | undefined): string {
  if (fact?.status === "verified") return "Identité vérifiée";
  return fact?.status === "expired" ? "Identité à revérifier" : "Identité non vérifiée";
}

/**
 * The identity check said plainly to a person, in one sentence: whether an official source
 * verified it, which, and as of when (a merchant page and each search result say it).
 */
export function identityStatementFr(fact: IdentityCheck | undefined): string {
  const source = "auprès d'un registre officiel, le répertoire SIRENE de l'INSEE,";
  if (fact?.status === "verified") {
    return `Identité vérifiée ${source} le ${formatDateFr(fact.signal.verifiedAt ?? fact.signal.recordedAt)}.`;
  }
  if (fact?.status === "expired") {
    const checked = fact.signal.verifiedAt ?? fact.signal.recordedAt;
    return `Identité vérifiée ${source} le ${formatDateFr(checked)}, mais cette vérification a expiré le ${formatDateFr(fact.signal.expiresAt)} : elle est à renouveler.`;
  }
  return "Identité non vérifiée : aucun registre officiel ne l'a confirmée à ce jour.";
}

/** How the pages name each official source, and word when its own record last changed. */
const OFFICIAL_SOURCE_FR: Record<OfficialSourceName, { name: string; changed: string }> = {
  sirene: { name: "Répertoire SIRENE (INSEE)", changed: "fiche modifiée par l'INSEE le" },
  bodacc: { name: "BODACC", changed: "annonce publiée le" },
  "recherche-entreprises": { name: "API Recherche d'entreprises", changed: "fiche modifiée le" },
};

/**
 * One official source of a merchant as its pages say it, in French (merchant.sources, from
 * officialSources: the same dates as resolve and the decision card): "Répertoire SIRENE (INSEE) :
 * confirmé le 1er décembre 2026 (fiche modifiée par l'INSEE le 3 mai 2018)".
 */
export function officialSourceFr(source: MerchantSource): { name: string; statement: string; changedLabel: string } {
  const words = OFFICIAL_SOURCE_FR[source.source];
  const changed = source.changed_at ? ` (${words.changed} ${formatDateFr(source.changed_at)})` : "";
  return {
    name: words.name,
    statement: `confirmé le ${formatDateFr(source.confirmed_at)}${changed}`,
    changedLabel: words.changed,
  };
}

/** A Q&A answer's proof in a few words (a quoted snippet's tag), from answerFactAt. */
export const ANSWER_CONFIDENCE_FR: Record<FactConfidence, string> = {
  verified: "réponse vérifiée",
  observed: "réponse contrôlée automatiquement",
  declared: "réponse déclarative, non vérifiée",
};

/**
 * How a page words a Q&A answer's proof, in French (the merchant's page, ai.md, the merchant
 * space), from answerFactAt at the page's instant: verified only while the official signal it rests
 * on counts, the merchant's own words as its declaration, and who read it last: a reading by the
 * merchant is said to be the merchant's, never a verification.
 */
export function answerProofFr(
  fact: AnswerFact,
  node: Pick<QaNode, "editedByMerchant" | "verificationLevel" | "humanVerifiedAt">,
): string {
  const proof = answerBackingFr(fact, node.editedByMerchant);
  if (!node.humanVerifiedAt) return proof;
  const reader = node.verificationLevel === MERCHANT_REVIEWED ? " par le commerçant" : "";
  return `${proof}, relue${reader} le ${formatDateFr(node.humanVerifiedAt)}`;
}

function answerBackingFr(fact: AnswerFact, editedByMerchant: boolean): string {
  if (editedByMerchant) return "réponse rédigée par le commerçant, non vérifiée";
  if (fact.confidence === "observed") return ANSWER_CONFIDENCE_FR.observed;
  if (!fact.restsOn) return ANSWER_CONFIDENCE_FR.declared;
  const signal = `« ${signalDefinition(fact.restsOn.signal)?.labelFr ?? fact.restsOn.signal} »`;
  if (fact.confidence === "verified") return `réponse vérifiée : elle repose sur ${signal}, en cours de validité`;
  const why =
    fact.restsOn.status === "expired"
      ? `a expiré le ${formatDateFr(fact.restsOn.expiresAt)}`
      : "ne compte pas à ce jour";
  return `réponse non vérifiée : la preuve sur laquelle elle repose, ${signal}, ${why}`;
}
