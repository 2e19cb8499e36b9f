import { type EmailRow, type EmailSection, frenchDateTime, type RenderedEmail, renderLayout } from "./email-format.ts";
import { intentRows, leadTypeNoun, preferredContactLabel, sectorLabel, sectorRows } from "./lead-labels.ts";
import type { NewLead } from "./lead-store.ts";

/** What the merchant's notification needs to know about a lead: the lead as stored, and its merchant. */
export type LeadEmailInput = Omit<NewLead, "brickId"> & {
  merchantName: string;
  merchantSector: string;
  brickName: string | null;
};

export const PLATFORM_SIGNATURE = "Abeille — le registre des commerçants vérifiés";

/**
 * Who sent the lead and through what, as far as Abeille knows it: a person typing in the form of
 * the merchant's page is not described as an AI assistant, and a program without a key is not
 * described as a registered agent.
 */
function howItCame(lead: Pick<LeadEmailInput, "channel" | "agentId">): string {
  if (lead.channel === "page") {
    return "La personne ci-dessous l'a écrite elle-même dans le formulaire de contact de votre fiche sur Abeille.";
  }
  if (lead.agentId) {
    return `Un assistant IA enregistré auprès d'Abeille (${lead.agentId}) l'a transmise par l'API d'Abeille, pour le compte de la personne ci-dessous.`;
  }
  return "Un logiciel sans clé d'API (un assistant IA ou un autre programme) l'a transmise par l'API d'Abeille, pour le compte de la personne ci-dessous.";
}

function senderOf(lead: Pick<LeadEmailInput, "channel" | "agentId">): string {
  if (lead.channel === "page") return "la personne elle-même, par le formulaire de votre fiche Abeille";
  return lead.agentId
    ? `l'assistant IA enregistré ${lead.agentId}, par l'API d'Abeille`
    : "un logiciel sans clé d'API, par l'API d'Abeille";
}

/** The French email that carries a new lead to the merchant (« Nouvelle demande de devis via Abeille »). */
export function renderLeadNotification(
  lead: LeadEmailInput,
  /** The lead's page in the merchant's space, where it can answer through Abeille too. */
  options: { spaceUrl: string },
): RenderedEmail {
  const noun = leadTypeNoun(lead.leadType);
  const subject = `Nouvelle ${noun} via Abeille`;
  const contactRows: EmailRow[] = [
    { label: "Nom", value: lead.contactName },
    { label: "E-mail", value: lead.contactEmail },
  ];
  if (lead.contactPhone) contactRows.push({ label: "Téléphone", value: lead.contactPhone });
  const preferred = preferredContactLabel(lead.intentData?.preferred_contact);
  if (preferred) contactRows.push({ label: "Moyen de contact préféré", value: preferred });

  const sections: EmailSection[] = [{ title: "Contact", rows: contactRows }];
  if (lead.message) sections.push({ title: "Message", body: lead.message });
  const details = sectorRows(lead.merchantSector, lead.metadata);
  if (details.length > 0) {
    const label = sectorLabel(lead.merchantSector);
    sections.push({ title: label ? `Détails de la demande (${label})` : "Détails de la demande", rows: details });
  }
  const project = intentRows(lead.intentData);
  if (lead.brickName) project.unshift({ label: "Prestation concernée", value: lead.brickName });
  if (lead.intent) project.push({ label: "Intention indiquée", value: lead.intent });
  if (project.length > 0) sections.push({ title: "Projet", rows: project });
  if (lead.aiContext)
    sections.push({ title: "Contexte transmis par le logiciel qui a envoyé la demande", body: lead.aiContext });
  sections.push({
    title: "Comment répondre",
    paragraphs: [
      `Répondez simplement à cet e-mail : votre réponse partira directement à ${lead.contactName} (${lead.contactEmail}).`,
      ...(lead.contactPhone ? [`Vous pouvez aussi appeler le ${lead.contactPhone}.`] : []),
      "Cette réponse part de votre messagerie : Abeille ne la lit pas et ne la relaie pas.",
      `Vous pouvez aussi répondre depuis votre espace Abeille, où la demande vous attend : ${options.spaceUrl} (il faut avoir revendiqué votre fiche). Abeille envoie alors votre réponse par e-mail à la personne${lead.channel === "page" ? ", qui la retrouve aussi sur sa page de suivi." : ", et le logiciel qui a transmis la demande peut la lire."}`,
    ],
  });
  sections.push({
    title: "Référence",
    rows: [
      { label: "Demande", value: lead.leadId },
      { label: "Reçue le", value: frenchDateTime(lead.createdAt) },
      { label: "Transmise par", value: senderOf(lead) },
    ],
  });

  const { text, html } = renderLayout({
    heading: subject,
    intro: ["Bonjour,", `${lead.merchantName} a reçu une nouvelle ${noun} via Abeille. ${howItCame(lead)}`],
    sections,
    footer: [
      PLATFORM_SIGNATURE,
      `Vous recevez ce message parce que ${lead.merchantName} (${lead.abId}) est inscrit au registre Abeille et accepte d'être contacté.`,
    ],
  });
  return { subject, text, html };
}
