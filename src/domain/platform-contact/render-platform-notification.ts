import { frenchDateTime, oneLine, type RenderedEmail, renderLayout } from "../leads/email-format.ts";
import { PLATFORM_SIGNATURE } from "../leads/render-lead-notification.ts";
import type { NewPlatformContact } from "./platform-contact-store.ts";

/** The message as stored is what the team's email shows. */
export type PlatformContactEmailInput = NewPlatformContact;

const TYPE_LABEL: Record<string, string> = {
  merchant_inquiry: "Demande d'un commerçant",
  partnership: "Partenariat",
  support: "Support",
};

/** The French email that tells the platform team about a message sent to POST /api/contact/platform. */
export function renderPlatformNotification(contact: PlatformContactEmailInput): RenderedEmail {
  const typeLabel = TYPE_LABEL[contact.type] ?? contact.type;
  const subject = `[Abeille] Nouveau message : ${typeLabel.toLowerCase()}${contact.company ? ` (${oneLine(contact.company, 60)})` : ""}`;
  const rows = [
    { label: "Type", value: typeLabel },
    { label: "Nom", value: contact.name },
    { label: "E-mail", value: contact.email },
    ...(contact.phone ? [{ label: "Téléphone", value: contact.phone }] : []),
    ...(contact.company ? [{ label: "Société", value: contact.company }] : []),
  ];
  const { text, html } = renderLayout({
    heading: subject,
    intro: ["Bonjour l'équipe,", "Un nouveau message est arrivé par le formulaire de contact de la plateforme."],
    sections: [
      { title: "Expéditeur", rows },
      { title: "Message", body: contact.message },
      {
        title: "Comment répondre",
        paragraphs: [`Répondez à cet e-mail : la réponse partira directement à ${contact.name} (${contact.email}).`],
      },
      {
        title: "Référence",
        rows: [
          { label: "Contact", value: contact.contactId },
          { label: "Reçu le", value: frenchDateTime(contact.createdAt) },
        ],
      },
    ],
    footer: [PLATFORM_SIGNATURE],
  });
  return { subject, text, html };
}
