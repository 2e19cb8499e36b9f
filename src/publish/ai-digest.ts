import { yearsBetween } from "../domain/calendar.ts";
import { formatAddress } from "../domain/format.ts";
import { buildLeadContract, LEAD_REQUIRED_FIELDS, type LeadType } from "../domain/lead-contract.ts";
import { clusterUrl } from "../domain/links.ts";
import { shortDescription, wordCount } from "../domain/registry/decision-card.ts";
import { merchantActions } from "../domain/registry/merchant-actions.ts";
import { sectorOf } from "../domain/sectors.ts";
import { answerFactAt, confidenceRank } from "../domain/trust/answer-fact.ts";
import { officialSources } from "../domain/trust/official-sources.ts";
import { AI_DIGEST_VERSION, type AiDigest } from "../schemas/documents.ts";
import { JSON_TYPE, type RenderedDocument, renderedDocument, stableEnvelope } from "./document.ts";
import {
  ANSWER_CONFIDENCE_FR,
  contactBlockedBecause,
  evidenceFacts,
  identityFact,
  identityWordingFr,
  isBusinessEmail,
} from "./facts.ts";
import { COMPONENT_LABELS_FR, formatDateFr, formatPriceFr, PROOF_LABELS_FR } from "./format-fr.ts";
import { weekHours } from "./hours.ts";
import { leadTypesFor } from "./lead-types.ts";
import type { MerchantView } from "./view.ts";

const SNIPPET_EVIDENCE_MAX = 6;
const SNIPPET_PRODUCTS_MAX = 5;
const SNIPPET_QUESTIONS_MAX = 5;

/**
 * The compact AI digest: who the merchant is, what a customer can get done there, how far each
 * claim is backed (with evidence URLs), sentences an assistant can quote with their source URL,
 * and how to send a lead. Merchant content is French; keys and codes are technical English.
 */
export function buildAiDigest(view: MerchantView): AiDigest {
  const { profile, assessment, links, options, trade } = view;
  const { merchant } = profile;
  const state = assessment.capabilities.state;
  const facts = evidenceFacts(view);
  const leadTypes = leadTypesFor(merchant.sector);
  const primaryLeadType = leadTypes[0] ?? "contact";
  const contract = buildLeadContract(options.baseUrl, merchant.sector, merchant.abId, { today: options.now });
  const descriptionStatus = !merchant.description
    ? "none"
    : merchant.descriptionLlmUnreviewed
      ? "pending_merchant_review"
      : "merchant_reviewed";

  const digest: AiDigest = {
    version: AI_DIGEST_VERSION,
    ab_id: merchant.abId,
    generated_at: view.generatedAt,
    identity: {
      name: merchant.businessName,
      legal_name: merchant.legalName,
      trade: trade?.label ?? merchant.nafCode,
      schema_org_type: trade?.schemaOrgType ?? "LocalBusiness",
      sector: merchant.sector,
      sector_label: sectorOf(merchant.sector)?.label ?? merchant.sector,
      siret: merchant.siret,
      siren: merchant.siret.slice(0, 9),
      naf_code: merchant.nafCode,
      address: formatAddress(merchant),
      postal_code: merchant.postalCode,
      city: merchant.city,
      latitude: profile.territorialProof?.latitude ?? null,
      longitude: profile.territorialProof?.longitude ?? null,
      phone: merchant.phone,
      email: isBusinessEmail(merchant.email, merchant.website) ? merchant.email : null,
      website: merchant.website,
      merchant_status: merchant.status,
      languages: [...merchant.languages],
      zones: [...merchant.zones],
      founded_on: merchant.foundedOn,
      years_in_business: yearsBetween(merchant.foundedOn, options.now),
      description: descriptionStatus === "merchant_reviewed" ? merchant.description : null,
      description_status: descriptionStatus,
    },
    jobs_to_be_done: [
      {
        kind: "trade",
        job: `${trade?.label ?? "Commerce"} à ${merchant.city}`,
        keywords: [...(trade?.keywords ?? [])],
        lead_type: primaryLeadType,
      },
      ...profile.products.map((product) => ({
        kind: "product" as const,
        job: product.name,
        description_short: shortDescription(product.description),
        price: formatPriceFr(product),
        price_cents: product.priceCents,
        currency: product.currency,
        pricing_model: product.pricingModel,
        product_id: product.productId,
        brick_id: product.brickId,
        tags: [...product.tags],
        lead_type: (product.pricingModel === "on_quote" && leadTypes.includes("quote")
          ? "quote"
          : primaryLeadType) as LeadType,
      })),
    ],
    trust: {
      score: assessment.trust.breakdown.total,
      level: assessment.trustLevel,
      breakdown: { ...assessment.trust.breakdown },
      reasons: [...assessment.capabilities.trustReasons],
      verified_evidence_count: facts.filter((fact) => fact.status === "verified" && fact.evidenceUrl !== null).length,
      official_source_count: facts.filter(
        (fact) => fact.status === "verified" && fact.proof === "official_source_verified",
      ).length,
      can_contact: state.can_contact,
      can_order: state.can_order,
      blocked_because: [...state.blocked_because],
    },
    // What backs the score: verified, unexpired signals with their evidence; the rest by key and status.
    credentials: facts
      .filter((fact) => fact.status === "verified")
      .map((fact) => ({
        key: fact.signal.key,
        label: fact.definition.label,
        proof_status: fact.proof,
        component: fact.component,
        points: fact.points,
        verified_at: fact.signal.verifiedAt,
        expires_at: fact.signal.expiresAt,
        evidence_url: fact.evidenceUrl,
      })),
    sources: officialSources(profile.signals),
    other_signals: facts
      .filter((fact) => fact.status !== "verified")
      .map((fact) => ({ key: fact.signal.key, status: fact.status as "unverified" | "failed" | "expired" })),
    citable_snippets: citableSnippets(view),
    contact: {
      can_contact: state.can_contact,
      blocked_because: contactBlockedBecause(state),
      endpoint: contract.endpoint,
      method: "POST",
      content_type: "application/json",
      required_fields: [...LEAD_REQUIRED_FIELDS],
      optional_fields: contract.base_fields.filter((field) => !field.required).map((field) => field.name),
      lead_types: leadTypes,
      sector_fields: contract.sector_fields,
      sector_fields_path: contract.sector_fields_path,
      example_payload: { ...contract.example_payload, lead_type: primaryLeadType },
    },
    links: {
      microsite: links.microsite,
      ai_md: links.aiMd,
      jsonld: links.jsonld,
      decision_card: links.decisionCard,
      clusters: links.clusters,
      resolve: links.resolve,
      manifest: links.manifest,
      snapshot_manifest: links.snapshot,
      jwks: links.jwks,
    },
  };
  return digest;
}

function citableSnippets(view: MerchantView): AiDigest["citable_snippets"] {
  const { profile, assessment, links, options } = view;
  const { merchant } = profile;
  const snippets: AiDigest["citable_snippets"] = [];
  const facts = evidenceFacts(view);
  const identity = identityFact(facts);
  const siret = identity?.status === "verified" ? identity : undefined;
  snippets.push({
    text: siret
      ? `${merchant.businessName} (${merchant.legalName}) est immatriculé sous le SIRET ${merchant.siret}, ${identityWordingFr(siret)}.`
      : identity?.status === "expired"
        ? `${merchant.businessName} (${merchant.legalName}) déclare le SIRET ${merchant.siret} ; sa ${identityWordingFr(identity)}.`
        : `${merchant.businessName} (${merchant.legalName}) déclare le SIRET ${merchant.siret} ; il n'est pas encore vérifié par Abeille.`,
    url: siret?.evidenceUrl ?? `https://annuaire-entreprises.data.gouv.fr/etablissement/${merchant.siret}`,
  });
  const { breakdown } = assessment.trust;
  snippets.push({
    text:
      `${merchant.businessName} a un score de confiance Abeille de ${breakdown.total}/100 ` +
      `(${COMPONENT_LABELS_FR.experience.toLowerCase()} ${breakdown.experience}/25, ` +
      `${COMPONENT_LABELS_FR.expertise.toLowerCase()} ${breakdown.expertise}/25, ` +
      `${COMPONENT_LABELS_FR.authority.toLowerCase()} ${breakdown.authority}/25, ` +
      `${COMPONENT_LABELS_FR.trust.toLowerCase()} ${breakdown.trust}/25), chaque point venant d'une preuve vérifiée.`,
    url: links.decisionCard,
  });
  for (const fact of facts
    .filter((item) => item.status === "verified" && item.evidenceUrl !== null && item.signal.key !== "siret_verified")
    .slice(0, SNIPPET_EVIDENCE_MAX)) {
    const when = fact.signal.verifiedAt ?? fact.signal.recordedAt;
    snippets.push({
      text: `${fact.definition.labelFr} : vérifié le ${formatDateFr(when)} (${PROOF_LABELS_FR[fact.proof] ?? fact.proof}).`,
      url: fact.evidenceUrl ?? links.decisionCard,
    });
  }
  if (merchant.listingRating !== null && merchant.listingReviewCount !== null && merchant.listingReviewCount > 0) {
    snippets.push({
      text: `Note moyenne publique de ${String(merchant.listingRating).replace(".", ",")}/5 sur ${merchant.listingReviewCount} avis.`,
      url: links.decisionCard,
    });
  }
  for (const product of profile.products.slice(0, SNIPPET_PRODUCTS_MAX)) {
    snippets.push({
      text: `${merchant.businessName} propose « ${product.name} » (${formatPriceFr(product)}).`,
      url: `${links.microsite}#${product.slug}`,
    });
  }
  const week = weekHours(merchant.hours);
  if (week && week.length > 0) {
    snippets.push({
      text: `Horaires de ${merchant.businessName} : ${week.map((day) => `${day.day} ${day.text}`).join(" ; ")}.`,
      url: `${links.microsite}#horaires`,
    });
  }
  const nowIso = options.now.toISOString();
  const questions = profile.clusters
    .flatMap((cluster) =>
      cluster.nodes.map((node) => ({
        cluster,
        node,
        confidence: answerFactAt(node, profile.signals, nowIso).confidence,
      })),
    )
    .filter((item) => wordCount(item.node.answerBluf) > 0)
    .sort((a, b) => confidenceRank(a.confidence) - confidenceRank(b.confidence))
    .slice(0, SNIPPET_QUESTIONS_MAX);
  for (const { cluster, node, confidence } of questions) {
    snippets.push({
      // Quoted as it stands, so it says how far it is backed (a declaration is not a fact).
      text: `${node.question} ${node.answerBluf} (${ANSWER_CONFIDENCE_FR[confidence]})`,
      url: `${clusterUrl(options.baseUrl, cluster.clusterId)}#${node.nodeId}`,
    });
  }
  return snippets;
}

/** The digest in its published envelope: the bytes of GET /api/merchants/{ab_id}/ai-digest. */
export function renderAiDigest(view: MerchantView): RenderedDocument {
  return renderedDocument(aiDigestText(view), JSON_TYPE);
}

/** The text of renderAiDigest's document (the refresh encodes it into a buffer of its own). */
export function aiDigestText(view: MerchantView): string {
  const { links, assessment, profile, options } = view;
  return stableEnvelope({
    data: buildAiDigest(view),
    actions: merchantActions(options.baseUrl, profile.merchant.abId, profile.merchant.sector, assessment.capabilities),
    canonical: links.aiDigest,
    links: { alternate: links.aiMd, jsonld: links.jsonld, decision_card: links.decisionCard },
    state: assessment.capabilities.state,
    timestamp: view.generatedAt,
  });
}
