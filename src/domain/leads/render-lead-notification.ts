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

/** The French email that carries a new lead to the merchant (« Nouvelle demande de devis via Abeille »). */
export function renderLeadNotification(lead: LeadEmailInput): RenderedEmail {
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
  if (lead.aiContext) sections.push({ title: "Contexte transmis par l'assistant IA", body: lead.aiContext });
  sections.push({
    title: "Comment répondre",
    paragraphs: [
      `Répondez simplement à cet e-mail : votre réponse partira directement à ${lead.contactName} (${lead.contactEmail}).`,
      ...(lead.contactPhone ? [`Vous pouvez aussi appeler le ${lead.contactPhone}.`] : []),
      "Abeille ne lit pas et ne relaie pas votre réponse.",
    ],
  });
  sections.push({
    title: "Référence",
    rows: [
      { label: "Demande", value: lead.leadId },
      { label: "Reçue le", value: frenchDateTime(lead.createdAt) },
      { label: "Transmise par", value: lead.agentId ? `l'agent IA ${lead.agentId}` : "un agent IA non enregistré" },
    ],
  });

  const { text, html } = renderLayout({
    heading: subject,
    intro: [
      "Bonjour,",
      `${lead.merchantName} a reçu une nouvelle ${noun} via Abeille. Un assistant IA l'a transmise pour le compte de la personne ci-dessous.`,
    ],
    sections,
    footer: [
      PLATFORM_SIGNATURE,
      `Vous recevez ce message parce que ${lead.merchantName} (${lead.abId}) est inscrit au registre Abeille et accepte d'être contacté.`,
    ],
  });
  return { subject, text, html };
}
