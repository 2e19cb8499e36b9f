import { frenchDateTime, type RenderedEmail, renderLayout } from "./email-format.ts";
import { leadTypeNoun } from "./lead-labels.ts";
import type { AnswerForDelivery } from "./lead-store.ts";
import { PLATFORM_SIGNATURE } from "./render-lead-notification.ts";

/**
 * The French email that carries a merchant's answer, written in its Abeille space, to the person
 * who sent the lead. The person's "Reply" goes to the merchant's lead address when it has one
 * (dispatch-outbox.ts); otherwise the email says to use the listing's contact details.
 */
export function renderLeadAnswer(answer: AnswerForDelivery): RenderedEmail {
  const { lead } = answer;
  const noun = leadTypeNoun(lead.leadType);
  const subject = `Réponse de ${lead.merchantName} à votre ${noun}`;
  const { text, html } = renderLayout({
    heading: subject,
    intro: [
      `Bonjour ${lead.contactName},`,
      `${lead.merchantName} répond à la ${noun} que vous lui avez envoyée le ${frenchDateTime(lead.createdAt)} via Abeille.`,
    ],
    sections: [
      { title: `Réponse de ${lead.merchantName}`, body: answer.body },
      ...(lead.message ? [{ title: "Votre demande", body: lead.message }] : []),
      {
        title: "Comment répondre",
        paragraphs: [
          lead.merchantEmail
            ? `Répondez simplement à cet e-mail : votre réponse partira directement à ${lead.merchantName} (${lead.merchantEmail}).`
            : `Pour lui répondre, utilisez les coordonnées de sa fiche sur Abeille (${lead.abId}).`,
          "Vous pouvez aussi retrouver cette réponse sur la page « Suivre une demande » d'Abeille, avec le code de suivi qui vous a été donné.",
        ],
      },
      {
        title: "Référence",
        rows: [
          { label: "Demande", value: lead.leadId },
          { label: "Réponse", value: answer.messageId },
          { label: "Écrite le", value: frenchDateTime(answer.createdAt) },
        ],
      },
    ],
    footer: [
      PLATFORM_SIGNATURE,
      `Vous recevez ce message parce que vous avez envoyé une ${noun} à ${lead.merchantName} via Abeille, à cette adresse.`,
    ],
  });
  return { subject, text, html };
}
