import { describe, expect, it } from "vitest";
import { renderFollowUp } from "../../src/domain/leads/render-follow-up.ts";
import { type LeadEmailInput, renderLeadNotification } from "../../src/domain/leads/render-lead-notification.ts";
import { renderPlatformNotification } from "../../src/domain/platform-contact/render-platform-notification.ts";

/** The lead's page in the merchant space, as the outbox gives it. */
const SPACE = { spaceUrl: "https://abeille.example/pro/ab_12345678/demandes/lead-1" };

const lead: LeadEmailInput = {
  leadId: "5b7f0d1e-6f3a-4c1b-9d2e-7a8b9c0d1e2f",
  abId: "ab_12345678",
  leadType: "quote",
  contactName: "Camille <Martin>",
  contactEmail: "camille.martin@example.fr",
  contactPhone: "+33 6 12 34 56 78",
  message: "Bonjour,\nnous organisons un séminaire & voulons un devis.",
  aiContext: "Compare trois prestataires.",
  intentData: { urgency: "within_week", budget_range: "5 000 €", preferred_contact: "both", timeline: "juin" },
  metadata: { event_type: "team_building", nb_participants: 1250, date_souhaitee: "2027-06-15" },
  intent: "request_quote",
  agentId: null,
  channel: "api",
  createdAt: "2026-11-22T07:20:58.000Z",
  merchantName: "Annecy Évasion",
  merchantSector: "tourisme",
  brickName: "Séminaire sur mesure",
};

describe("the merchant's lead notification", () => {
  it("is in French, with a subject by lead type", () => {
    expect(renderLeadNotification(lead, SPACE).subject).toBe("Nouvelle demande de devis via Abeille");
    expect(renderLeadNotification({ ...lead, leadType: "rdv" }, SPACE).subject).toBe(
      "Nouvelle demande de rendez-vous via Abeille",
    );
    expect(renderLeadNotification({ ...lead, leadType: "estimation" }, SPACE).subject).toBe(
      "Nouvelle demande d'estimation via Abeille",
    );
    expect(renderLeadNotification({ ...lead, leadType: "contact" }, SPACE).subject).toBe(
      "Nouvelle demande de contact via Abeille",
    );
  });

  it("lists the contact, the message, sector fields with their French labels, the project and how to answer", () => {
    const { text } = renderLeadNotification(lead, SPACE);
    expect(text).toContain("Nom : Camille <Martin>");
    expect(text).toContain("E-mail : camille.martin@example.fr");
    expect(text).toContain("Moyen de contact préféré : E-mail ou téléphone");
    expect(text).toContain("nous organisons un séminaire & voulons un devis.");
    expect(text).toContain("Détails de la demande (Tourisme et événementiel)");
    expect(text).toContain("Type d'événement : Team building");
    expect(text).toMatch(/Nombre de participants : 1\s250/);
    expect(text).toContain(": 15/06/2027");
    expect(text).toContain("Prestation concernée : Séminaire sur mesure");
    expect(text).toContain("Urgence : Dans la semaine");
    expect(text).toContain("Calendrier : juin");
    expect(text).toContain("Intention indiquée : request_quote");
    expect(text).toContain("Contexte transmis par le logiciel qui a envoyé la demande");
    expect(text).toContain("Comment répondre");
    expect(text).toContain("Vous pouvez aussi appeler le +33 6 12 34 56 78.");
    expect(text).toContain("Cette réponse part de votre messagerie : Abeille ne la lit pas et ne la relaie pas.");
    expect(text).toContain(
      `Vous pouvez aussi répondre depuis votre espace Abeille, où la demande vous attend : ${SPACE.spaceUrl} (il faut avoir revendiqué votre fiche).`,
    );
    expect(text).toContain("Reçue le : 22 novembre 2026 à 08:20");
    expect(text).toContain("Transmise par : un logiciel sans clé d'API, par l'API d'Abeille");
    expect(text).toContain(
      "Un logiciel sans clé d'API (un assistant IA ou un autre programme) l'a transmise par l'API d'Abeille, pour le compte de la personne ci-dessous.",
    );
  });

  it("says a person wrote a lead in the form of the merchant's page, never that an AI assistant sent it", () => {
    const { text, html } = renderLeadNotification({ ...lead, channel: "page", aiContext: null, agentId: null }, SPACE);
    expect(text).toContain(
      "La personne ci-dessous l'a écrite elle-même dans le formulaire de contact de votre fiche sur Abeille.",
    );
    expect(text).toContain("Transmise par : la personne elle-même, par le formulaire de votre fiche Abeille");
    expect(text).not.toMatch(/assistant|agent IA|logiciel/i);
    expect(html).not.toMatch(/assistant|agent IA|logiciel/i);
  });

  it("names the registered agent that sent a lead through the API", () => {
    const { text } = renderLeadNotification({ ...lead, agentId: "agt_123" }, SPACE);
    expect(text).toContain("Un assistant IA enregistré auprès d'Abeille (agt_123) l'a transmise par l'API d'Abeille");
    expect(text).toContain("Transmise par : l'assistant IA enregistré agt_123, par l'API d'Abeille");
  });

  it("escapes the HTML part and loads nothing remote (no images, no links, no tracking)", () => {
    const { html } = renderLeadNotification(lead, SPACE);
    expect(html).toContain("Camille &lt;Martin&gt;");
    expect(html).toContain("séminaire &amp; voulons");
    expect(html).not.toMatch(/<img|<link|<script|src=|href=|url\(/i);
    expect(html).toContain('<html lang="fr">');
  });

  it("leaves out what was not given", () => {
    const { text } = renderLeadNotification(
      {
        ...lead,
        contactPhone: null,
        message: null,
        aiContext: null,
        intentData: null,
        metadata: null,
        intent: null,
        brickName: null,
        agentId: "agt_123",
      },
      SPACE,
    );
    expect(text).not.toContain("Téléphone");
    expect(text).not.toContain("— Message —");
    expect(text).not.toContain("Détails de la demande");
    expect(text).not.toContain("— Projet —");
    expect(text).toContain("l'assistant IA enregistré agt_123");
  });
});

describe("follow-up and platform notifications", () => {
  it("render the follow-up in French with the original lead's reference", () => {
    const email = renderFollowUp({
      messageId: "m-1",
      body: "Êtes-vous disponible jeudi ?",
      createdAt: "2026-11-23T09:00:00.000Z",
      position: 2,
      lead,
    });
    expect(email.subject).toBe("Nouveau message au sujet d'une demande de devis reçue via Abeille");
    expect(email.text).toContain("Êtes-vous disponible jeudi ?");
    expect(email.text).toContain(lead.leadId);
    expect(email.text).toContain("n° 2");
  });

  it("render the platform team's note with the type in French", () => {
    const email = renderPlatformNotification({
      contactId: "c-1",
      type: "merchant_inquiry",
      name: "Jeanne",
      email: "jeanne@example.fr",
      phone: null,
      company: null,
      message: "Inscription",
      createdAt: "2026-11-23T09:00:00.000Z",
    });
    expect(email.subject).toBe("[Abeille] Nouveau message : demande d'un commerçant");
    expect(email.text).toContain("Type : Demande d'un commerçant");
    expect(email.text).toContain("Inscription");
  });
});
