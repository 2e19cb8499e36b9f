import { yearsBetween } from "../domain/calendar.ts";
import { formatAddress } from "../domain/format.ts";
import { buildLeadContract, LEAD_REQUIRED_FIELDS } from "../domain/lead-contract.ts";
import { clusterUrl } from "../domain/links.ts";
import { sectorOf } from "../domain/sectors.ts";
import { answerFactAt } from "../domain/trust/answer-fact.ts";
import { officialSources } from "../domain/trust/official-sources.ts";
import { trustComponents } from "../domain/trust/signal-catalog.ts";
import { MARKDOWN_TYPE, type RenderedDocument, renderedDocument } from "./document.ts";
import {
  answerProofFr,
  contactBlockedBecause,
  evidenceFacts,
  identityFact,
  identityWordingFr,
  isBusinessEmail,
  officialSourceFr,
} from "./facts.ts";
import {
  BLOCKED_REASON_FR,
  COMPONENT_LABELS_FR,
  closureStatementFr,
  formatDateFr,
  formatPriceFr,
  LANGUAGE_LABELS_FR,
  LEAD_TYPE_LABELS_FR,
  PROOF_LABELS_FR,
  STATUS_LABELS_FR,
} from "./format-fr.ts";
import { weekHours } from "./hours.ts";
import { leadTypesFor } from "./lead-types.ts";
import type { MerchantView } from "./view.ts";

/** Markdown-significant characters in inline text, escaped so merchant text cannot change the structure. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (char) => `\\${char}`).replace(/\s*\n\s*/g, " ");
}

const line = (label: string, value: string | null | undefined) =>
  value === null || value === undefined || value === "" ? [] : [`- ${label} : ${value}`];

/**
 * `/m/{ab_id}/ai.md`: the microsite as Markdown for language models. Section headings are stable
 * technical English (so a model or a parser can find its way); the merchant's content is French,
 * as on the microsite. Every claim carries its proof level and, where there is one, its evidence URL.
 */
export function buildAiMd(view: MerchantView): string {
  const { profile, assessment, links, options, trade } = view;
  const { merchant } = profile;
  const state = assessment.capabilities.state;
  const { breakdown } = assessment.trust;
  const facts = evidenceFacts(view);
  const out: string[] = [];
  const name = escapeMarkdown(merchant.businessName);
  const tradeLabel = trade?.label ?? sectorOf(merchant.sector)?.label ?? merchant.nafCode;

  out.push(`# ${name} — ${escapeMarkdown(tradeLabel)} à ${escapeMarkdown(merchant.city)}`, "");
  out.push(
    `> Fiche Abeille ${merchant.abId} : commerçant ${merchant.status === "ACTIVE" ? "actif" : (STATUS_LABELS_FR[merchant.status] ?? merchant.status).toLowerCase()}, ` +
      `score de confiance ${breakdown.total}/100 (${assessment.trustLevel}). ` +
      `Contenu à jour au ${view.generatedAt}. Source : registre Abeille (${options.baseUrl}).`,
    "",
  );
  if (merchant.closure) {
    out.push(`> **${closureStatementFr(merchant.closure)}** Source : ${merchant.closure.sourceUrl}`, "");
  }

  out.push("## Identité", "");
  const siret = identityFact(facts);
  out.push(
    ...line("Nom commercial", name),
    ...line("Raison sociale", escapeMarkdown(merchant.legalName)),
    ...line(
      "SIRET",
      `${merchant.siret} (${identityWordingFr(siret)}${siret?.evidenceUrl && siret.status !== "unverified" ? ` : ${siret.evidenceUrl}` : ""})`,
    ),
    ...line("Code NAF", `${merchant.nafCode} (${escapeMarkdown(tradeLabel)})`),
    ...line("Secteur", sectorOf(merchant.sector)?.label ?? merchant.sector),
    ...line("Adresse", escapeMarkdown(formatAddress(merchant))),
    ...line(
      "Coordonnées GPS",
      profile.territorialProof?.latitude != null && profile.territorialProof.longitude != null
        ? `${profile.territorialProof.latitude}, ${profile.territorialProof.longitude}`
        : null,
    ),
    ...line("Téléphone", merchant.phone),
    ...line("E-mail", isBusinessEmail(merchant.email, merchant.website) ? merchant.email : null),
    ...line("Site web", merchant.website),
    ...line("Statut", `${merchant.status} (${STATUS_LABELS_FR[merchant.status] ?? merchant.status})`),
    ...line(
      "Création",
      `${formatDateFr(merchant.foundedOn)} (${yearsBetween(merchant.foundedOn, options.now)} ans d'activité)`,
    ),
    ...line("Langues", merchant.languages.map((code) => LANGUAGE_LABELS_FR[code] ?? code).join(", ")),
    ...line("Zone d'intervention", merchant.zones.map(escapeMarkdown).join(", ")),
    ...line("Autres pages", merchant.sameAs.join(", ")),
  );
  out.push("");
  if (merchant.description && !merchant.descriptionLlmUnreviewed) {
    out.push("### Description (validée par le commerçant)", "", escapeMarkdown(merchant.description), "");
  } else if (merchant.description) {
    out.push(
      "_Description : un texte généré automatiquement attend la validation du commerçant ; il n'est pas publié._",
      "",
    );
  }

  out.push("## Confiance", "");
  out.push(`Score de confiance : **${breakdown.total}/100** (niveau ${assessment.trustLevel}).`, "");
  out.push("| Composante | Points |", "|---|---|");
  for (const component of trustComponents) {
    out.push(`| ${COMPONENT_LABELS_FR[component]} (${component}) | ${breakdown[component]}/25 |`);
  }
  out.push("");
  out.push("### Preuves", "");
  const counted = facts.filter((fact) => fact.points > 0 || (fact.status === "verified" && fact.evidenceUrl));
  if (counted.length === 0) out.push("Aucune preuve vérifiée pour le moment.");
  for (const fact of counted) {
    const when = fact.signal.verifiedAt ?? fact.signal.recordedAt;
    const status = fact.status === "verified" ? `vérifié le ${formatDateFr(when)}` : fact.status;
    const points = fact.points > 0 ? `, +${fact.points} pt ${fact.component}` : "";
    out.push(
      `- ${fact.definition.labelFr} : ${status} (${PROOF_LABELS_FR[fact.proof] ?? fact.proof}${points})${fact.evidenceUrl ? ` — ${fact.evidenceUrl}` : ""}`,
    );
  }
  out.push("");
  const sources = officialSources(profile.signals);
  if (sources.length > 0) {
    out.push("### Sources officielles", "");
    for (const source of sources) {
      const { name, statement } = officialSourceFr(source);
      out.push(`- ${name} : ${statement}`);
    }
    out.push("");
  }
  if (merchant.listingRating !== null && merchant.listingReviewCount !== null && merchant.listingReviewCount > 0) {
    out.push(`Note moyenne publique : ${merchant.listingRating}/5 sur ${merchant.listingReviewCount} avis.`, "");
  }

  out.push("## Prestations et tarifs", "");
  if (profile.products.length === 0) out.push("Aucune prestation publiée.");
  for (const product of profile.products) {
    out.push(
      `- **${escapeMarkdown(product.name)}** — ${formatPriceFr(product)} — ${escapeMarkdown(product.description)} (brick_id \`${product.brickId}\`${product.tags.length > 0 ? `, tags : ${product.tags.map(escapeMarkdown).join(", ")}` : ""})`,
    );
  }
  out.push("");

  out.push("## Horaires", "");
  const week = weekHours(merchant.hours);
  if (!week || week.length === 0) out.push("Horaires non communiqués.");
  else {
    out.push("| Jour | Horaires |", "|---|---|");
    for (const day of week) out.push(`| ${day.day} | ${escapeMarkdown(day.text.replace(/,/g, ", "))} |`);
  }
  out.push("");

  out.push("## Questions fréquentes", "");
  const nodes = profile.clusters.flatMap((cluster) => cluster.nodes.map((node) => ({ cluster, node })));
  if (nodes.length === 0) out.push("Aucune question publiée.");
  for (const cluster of profile.clusters) {
    if (cluster.nodes.length === 0) continue;
    out.push(`### ${escapeMarkdown(cluster.label)}`, "");
    for (const node of cluster.nodes) {
      const fact = answerFactAt(node, profile.signals, options.now.toISOString());
      out.push(
        `**${escapeMarkdown(node.question)}**`,
        "",
        escapeMarkdown(node.answerBluf || node.answer),
        "",
        `_Niveau de preuve : ${fact.confidence}, ${answerProofFr(fact, node)} (${node.verificationLevel}). Source : ${clusterUrl(options.baseUrl, cluster.clusterId)}#${node.nodeId}_`,
        "",
      );
    }
  }
  if (nodes.length === 0) out.push("");

  out.push("## Envoyer une demande", "");
  const blocked = contactBlockedBecause(state);
  if (!state.can_contact) {
    out.push(
      `Contact désactivé pour le moment : ${blocked.map((reason) => BLOCKED_REASON_FR[reason] ?? reason).join(" ; ")} (blocked_because : ${blocked.join(", ")}).`,
      "",
    );
  } else {
    const contract = buildLeadContract(options.baseUrl, merchant.sector, merchant.abId, { today: options.now });
    const leadTypes = leadTypesFor(merchant.sector);
    const example = { ...contract.example_payload, lead_type: leadTypes[0] ?? "contact" };
    out.push(
      `Envoyer une demande : \`POST ${contract.endpoint}\` avec un corps \`application/json\`.`,
      "",
      `- Champs obligatoires : ${LEAD_REQUIRED_FIELDS.map((field) => `\`${field}\``).join(", ")}`,
      `- Champs facultatifs : \`contact_phone\`, \`message\`, \`intent_data\`, \`ai_context\``,
      `- Types de demande adaptés : ${leadTypes.map((type) => `\`${type}\` (${LEAD_TYPE_LABELS_FR[type] ?? type})`).join(", ")}`,
      ...(contract.sector_fields.length > 0
        ? [
            `- Champs du secteur, dans \`${contract.sector_fields_path}\` : ${contract.sector_fields
              .map(
                (field) => `\`${field.name}\` (${field.type}${field.options ? ` : ${field.options.join(" | ")}` : ""})`,
              )
              .join(", ")}`,
          ]
        : []),
      "- Réponse : 201 avec `lead_id` et `tracking_token` ; la même demande renvoyée par le même appelant (même clé d'API, ou même adresse sans clé) dans les 24 heures renvoie 200 avec la première demande et `deduplicated: true`, et un message nouveau y est ajouté puis transmis au commerçant.",
      "",
      "```json",
      JSON.stringify(example, null, 2),
      "```",
      "",
    );
  }

  out.push("## Liens", "");
  out.push(
    `- Fiche du commerçant : ${links.microsite}`,
    `- JSON-LD (Schema.org) : ${links.jsonld}`,
    `- Synthèse pour les agents IA (AI digest) : ${links.aiDigest}`,
    `- Fiche de décision (decision card) : ${links.decisionCard}`,
    `- Questions-réponses (clusters) : ${links.clusters}`,
    `- Manifeste de vérification (JWS signé) : ${links.manifest}`,
    `- Manifeste instantané (24 h) : ${links.snapshot}`,
    `- Clés publiques (JWKS) : ${links.jwks}`,
    "",
  );
  return out.join("\n");
}

export function renderAiMd(view: MerchantView): RenderedDocument {
  return renderedDocument(buildAiMd(view), MARKDOWN_TYPE);
}
