import { assembleDecisionCard, cardTexts } from "../domain/registry/decision-card.ts";
import { merchantActions } from "../domain/registry/merchant-actions.ts";
import type { DecisionCardDocument } from "../schemas/decision-card.ts";
import { JSON_TYPE, jsonWithKnown, type RenderedDocument, renderedDocument, stableEnvelope } from "./document.ts";
import type { MerchantView } from "./view.ts";

/**
 * The decision card as published: assembled by the domain at the view's clock, with its two
 * generation times set to the document time (period.ts) so an unchanged merchant gives the same
 * bytes on every run. `content_hash` leaves both out, so it is the domain's hash unchanged.
 */
export function buildPublishedDecisionCard(view: MerchantView): DecisionCardDocument {
  const document = assembleDecisionCard(view.profile, view.assessment, {
    baseUrl: view.options.baseUrl,
    orderRailEnabled: view.options.orderRailEnabled,
    now: view.options.now,
  });
  const card = document.decision_card;
  card.generated_at = view.generatedAt;
  card.provenance = { ...card.provenance, manifest_generated_at: view.generatedAt };
  return document;
}

/** The bytes of GET /api/merchants/{ab_id}/decision-card, as published. */
export function renderDecisionCard(view: MerchantView, card = buildPublishedDecisionCard(view)): RenderedDocument {
  return renderedDocument(decisionCardText(view, card), JSON_TYPE);
}

/** The text of renderDecisionCard's document (the refresh encodes it into a buffer of its own). */
export function decisionCardText(view: MerchantView, card: DecisionCardDocument): string {
  const { profile, assessment, links, options } = view;
  return stableEnvelope({
    data: card,
    dataText: decisionCardDocumentText(card),
    actions: merchantActions(options.baseUrl, profile.merchant.abId, profile.merchant.sector, assessment.capabilities),
    canonical: links.decisionCard,
    links: { alternate: links.aiMd },
    state: assessment.capabilities.state,
    timestamp: view.generatedAt,
  });
}

/**
 * The JSON of a decision card document, its members in their own order, each member of the card
 * (and the card's members repeated at the top of the document: identity, trust...) printed from
 * the canonical text its content hash was computed from (domain/registry/decision-card.ts
 * cardTexts): a card's members are serialized once, not three times.
 */
export function decisionCardDocumentText(document: DecisionCardDocument): string {
  const card = document.decision_card;
  const known = new Map(cardTexts(card).byObject);
  known.set(card, jsonWithKnown(card, known));
  return jsonWithKnown(document, known);
}
