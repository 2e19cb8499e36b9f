import { frenchDateTime, type RenderedEmail, renderLayout } from "./email-format.ts";
import { leadTypeNoun } from "./lead-labels.ts";
import { type LeadEmailInput, PLATFORM_SIGNATURE } from "./render-lead-notification.ts";

export interface FollowUpEmailInput {
  messageId: string;
  body: string;
  createdAt: string;
  position: number;
  lead: Pick<
    LeadEmailInput,
    "leadId" | "abId" | "leadType" | "contactName" | "contactEmail" | "contactPhone" | "createdAt" | "merchantName"
  >;
}

/** The French email that carries an agent's follow-up message on a lead to the merchant. */
export function renderFollowUp(input: FollowUpEmailInput): RenderedEmail {
  const { lead } = input;
  const noun = leadTypeNoun(lead.leadType);
  const subject = `Nouveau message au sujet d'une ${noun} reçue via Abeille`;
  const { text, html } = renderLayout({
    heading: subject,
    intro: [
      "Bonjour,",
      `${lead.contactName} vous écrit de nouveau au sujet de la ${noun} envoyée à ${lead.merchantName} le ${frenchDateTime(lead.createdAt)}. Ce message a été envoyé par l'API d'Abeille avec le code de suivi de la demande.`,
    ],
    sections: [
      { title: "Message", body: input.body },
      {
        title: "Comment répondre",
        paragraphs: [
          `Répondez simplement à cet e-mail : votre réponse partira directement à ${lead.contactName} (${lead.contactEmail}).`,
          ...(lead.contactPhone ? [`Vous pouvez aussi appeler le ${lead.contactPhone}.`] : []),
        ],
      },
      {
        title: "Référence",
        rows: [
          { label: "Demande", value: lead.leadId },
          { label: "Message", value: `n° ${input.position} (${input.messageId})` },
          { label: "Envoyé le", value: frenchDateTime(input.createdAt) },
        ],
      },
    ],
    footer: [
      PLATFORM_SIGNATURE,
      `Vous recevez ce message parce que ${lead.merchantName} (${lead.abId}) a reçu cette demande via Abeille.`,
    ],
  });
  return { subject, text, html };
}
