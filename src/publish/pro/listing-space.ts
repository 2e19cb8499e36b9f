import { HOURLY_WINDOW_SECONDS } from "../../domain/access/rate-limit-policy.ts";
import type { RateLimiter } from "../../domain/access/rate-limiter.ts";
import { type LeadEmailDeps, requestLeadEmail } from "../../domain/merchant-space/lead-email.ts";
import {
  editListing,
  type ListingAccess,
  officialFieldsIn,
  setListingPaused,
} from "../../domain/merchant-space/listing-edits.ts";
import { scoreAdvice } from "../../domain/merchant-space/score-advice.ts";
import { merchantNextStatuses } from "../../domain/merchants/lifecycle.ts";
import { readRegistered } from "../../domain/merchants/load-registered.ts";
import { decideInRegistry } from "../../domain/merchants/merchant-registry.ts";
import { reviewQaAnswer } from "../../domain/merchants/review-qa-answer.ts";
import { errorCatalog } from "../../errors/catalog.ts";
import { isServiceError, type ValidationIssue } from "../../errors/service-error.ts";
import {
  brandVoiceFromForm,
  contactFromForm,
  type FormFields,
  type FormReading,
  fieldErrorsOf,
  hoursFromForm,
  LISTING_SECTIONS,
  type ListingSection,
  productsFromForm,
} from "./listing-form.ts";
import type { ListingFormState, ListingSpaceModel } from "./listing-page.ts";

/**
 * What the listing page of the merchant space reads and what its forms do: each form is one call
 * of one domain door (editListing, requestLeadEmail, reviewQaAnswer, setListingPaused), counted on
 * the claim's edit budget; a refusal comes back as the section's French errors with the values
 * typed, never a half-written change.
 */
export interface ListingSpaceDeps extends LeadEmailDeps {
  limiter: RateLimiter;
  /** Edits a claim may post per hour (config PRO_EDITS_PER_HOUR). */
  editsPerHour: number;
  baseUrl: string;
}

export async function loadListingModel(deps: ListingSpaceDeps, abId: string): Promise<ListingSpaceModel> {
  const current = await readRegistered(deps, abId);
  const now = deps.now();
  const pending = await deps.confirmations.pendingOf(abId, now.toISOString());
  const waiting = await deps.confirmations.waitingOf(abId);
  return {
    merchant: current.merchant,
    products: current.products,
    clusters: current.clusters,
    signals: current.signals,
    advice: scoreAdvice(current.merchant, current.signals, now),
    pendingEmail: pending ? { email: pending.email, expiresAt: pending.expiresAt } : null,
    waitingEmail: waiting ? { email: waiting.email } : null,
    nextStatuses: merchantNextStatuses(current.merchant.status),
    publicUrl: `${deps.baseUrl}/m/${abId}/`,
    now,
  };
}

export interface ListingFormAnswer {
  status: number;
  state: ListingFormState;
}

const SAVED_FR: Record<ListingSection, string> = {
  coordonnees: "Vos coordonnées sont enregistrées.",
  horaires: "Vos horaires sont enregistrés.",
  produits: "Vos produits et services sont enregistrés.",
  voix: "Votre voix de marque est enregistrée.",
  "e-mail": "",
  question: "Votre réponse est enregistrée.",
  statut: "",
};
const PUBLISHED_LATER_FR = " Les agents la verront à la prochaine publication du registre.";
const UNCHANGED_FR = "Rien n'a changé : les valeurs envoyées sont celles déjà enregistrées.";

/** Answers one posted form of the listing page; throws what is not the form's fault (the route's page says it). */
export async function answerListingForm(
  deps: ListingSpaceDeps,
  access: ListingAccess & { claimId: string },
  fields: FormFields,
): Promise<ListingFormAnswer> {
  const section = LISTING_SECTIONS.find((name) => name === fields.section);
  if (!section) return refusedAs(null, fields, "Ce formulaire n'est pas reconnu. Rechargez la page.", 400);
  // A form of the page never carries these: a forged one is refused as a whole, and told why.
  const official = officialFieldsIn(Object.keys(fields));
  if (official.length > 0) {
    return refusedAs(
      section,
      fields,
      `Rien n'a été enregistré : ${official.map((field) => OFFICIAL_LABELS_FR[field] ?? field).join(", ")} ${official.length > 1 ? "viennent" : "vient"} des registres officiels (SIRENE) et ne se modifie${official.length > 1 ? "nt" : ""} pas ici.`,
      errorCatalog.VALIDATION_ERROR.status,
    );
  }
  const budget = await deps.limiter.consume(`pro-edit:${access.claimId}`, deps.editsPerHour, HOURLY_WINDOW_SECONDS);
  if (!budget.allowed) {
    return refusedAs(
      section,
      fields,
      `Trop de modifications en peu de temps. Réessayez dans ${Math.max(1, Math.ceil(budget.retryAfterSeconds / 60))} minute(s).`,
      errorCatalog.RATE_LIMITED.status,
    );
  }
  let rows: readonly number[] = [];
  try {
    const saved = (changed: boolean) =>
      savedAs(section, changed ? SAVED_FR[section] + PUBLISHED_LATER_FR : UNCHANGED_FR);
    const edit = async (reading: FormReading) => {
      if (!reading.ok) return fieldsRefused(section, fields, reading.issues, []);
      rows = reading.rows ?? [];
      return saved((await editListing(deps, access, reading.input)).changed.length > 0);
    };
    switch (section) {
      case "coordonnees":
        return await edit(contactFromForm(fields));
      case "horaires":
        return await edit(hoursFromForm(fields));
      case "produits":
        return await edit(productsFromForm(fields, (await readRegistered(deps, access.abId)).products));
      case "voix":
        return await edit(brandVoiceFromForm(fields, (await readRegistered(deps, access.abId)).merchant.brandVoice));
      case "e-mail": {
        const request = await requestLeadEmail(deps, access, (fields.email ?? "").trim());
        return savedAs(
          section,
          request.outcome === "already_current"
            ? `Les demandes arrivent déjà à ${request.email}.`
            : `Un lien de confirmation a été envoyé à ${request.email}. L'adresse sera utilisée une fois le lien ouvert ; d'ici là, rien ne change.`,
        );
      }
      case "question": {
        const correcting = fields.action === "correct";
        await decideInRegistry(deps, { abIds: [access.abId] }, (decision) =>
          reviewQaAnswer(
            decision,
            access.abId,
            { nodeId: fields.node_id ?? "", ...(correcting ? { answer: fields.answer ?? "" } : {}) },
            access.actor,
          ),
        );
        return savedAs(
          section,
          (correcting ? "Votre correction est enregistrée." : "La réponse est validée telle quelle.") +
            PUBLISHED_LATER_FR,
        );
      }
      case "statut": {
        const change = await setListingPaused(deps, access, fields.to === "pause");
        return savedAs(
          section,
          change.to === "PAUSED"
            ? "Votre fiche est en pause : les agents ne vous transmettent plus de demande."
            : "Votre fiche est de nouveau active.",
        );
      }
    }
  } catch (failure) {
    if (!isServiceError(failure)) throw failure;
    if (failure.code === "VALIDATION_ERROR") {
      const issues = failure.details.issues ?? [];
      // A Q&A answer's refusals concern the one field of its form.
      const named = section === "question" ? issues.map((issue) => ({ ...issue, path: "answer" })) : issues;
      return fieldsRefused(section, fields, named, rows);
    }
    if (failure.code === "CONFLICT" || failure.code === "NOT_FOUND") {
      return refusedAs(section, fields, CONFLICT_FR[section], errorCatalog[failure.code].status);
    }
    throw failure;
  }
}

const OFFICIAL_LABELS_FR: Record<string, string> = {
  siret: "le SIRET",
  legal_name: "la raison sociale",
  business_name: "le nom commercial",
  naf_code: "le code NAF",
  address: "l'adresse",
  rcs: "l'immatriculation au RCS",
  vat_number: "le numéro de TVA",
  founded_on: "la date de création",
};

const CONFLICT_FR: Record<ListingSection, string> = {
  coordonnees: "Votre fiche a changé pendant votre saisie ; rien n'a été enregistré. Renvoyez le formulaire.",
  horaires: "Votre fiche a changé pendant votre saisie ; rien n'a été enregistré. Renvoyez le formulaire.",
  produits: "Votre fiche a changé pendant votre saisie ; rien n'a été enregistré. Renvoyez le formulaire.",
  voix: "Votre fiche a changé pendant votre saisie ; rien n'a été enregistré. Renvoyez le formulaire.",
  "e-mail": "L'adresse n'a pas pu être enregistrée. Rechargez la page et recommencez.",
  question: "Cette question n'existe plus sur votre fiche. Rechargez la page.",
  statut:
    "Ce changement de statut n'est pas possible pour l'instant : la réactivation attend que l'identité soit vérifiée et la présentation relue.",
};

function savedAs(section: ListingSection, text: string): ListingFormAnswer {
  return { status: 200, state: { section, errors: {}, values: null, notice: { kind: "saved", text } } };
}

function refusedAs(
  section: ListingSection | null,
  fields: FormFields,
  text: string,
  status: number,
): ListingFormAnswer {
  return { status, state: { section, errors: {}, values: fields, notice: { kind: "refused", text } } };
}

function fieldsRefused(
  section: ListingSection,
  fields: FormFields,
  issues: readonly ValidationIssue[],
  rows: readonly number[],
): ListingFormAnswer {
  return {
    status: errorCatalog.VALIDATION_ERROR.status,
    state: {
      section,
      errors: fieldErrorsOf(issues, rows),
      values: fields,
      notice: { kind: "refused", text: "Rien n'a été enregistré : corrigez les champs signalés." },
    },
  };
}
