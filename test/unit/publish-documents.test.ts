import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/domain/canonical-json.ts";
import { buildAiDigest, renderAiDigest } from "../../src/publish/ai-digest.ts";
import { buildAiMd, escapeMarkdown, renderAiMd } from "../../src/publish/ai-md.ts";
import { buildClusterDocument, buildClusterList, verificationSummary } from "../../src/publish/clusters.ts";
import { buildPublishedDecisionCard, renderDecisionCard } from "../../src/publish/decision-card.ts";
import { formatAmountFr, formatDateFr, formatPriceFr } from "../../src/publish/format-fr.ts";
import { buildMicrosite } from "../../src/publish/microsite.ts";
import { aiDigestSchema, clusterDocumentSchema, clusterListSchema } from "../../src/schemas/documents.ts";
import { AB_ID, BASE, tourismProfile, view } from "./publish-fixtures.ts";

describe("AI digest", () => {
  const digest = buildAiDigest(view());

  it("matches its schema and carries identity, jobs, credentials, snippets, contact and links", () => {
    expect(aiDigestSchema.parse(digest)).toEqual(digest);
    expect(digest.ab_id).toBe(AB_ID);
    expect(digest.identity).toMatchObject({
      name: "Lac & Montagne Événements",
      trade: "Agence de voyages",
      schema_org_type: "TravelAgency",
      siret: "73282932000074",
      siren: "732829320",
      email: "contact@lacmontagne.example",
      description_status: "merchant_reviewed",
    });
    expect(digest.links.jsonld).toBe(`${BASE}/api/merchants/${AB_ID}/jsonld`);
    expect(digest.links.snapshot_manifest).toBe(`${BASE}/api/registry/verify/${AB_ID}?snapshot=1`);
  });

  it("turns the trade and each product into jobs to be done, with prices a French reader reads", () => {
    expect(digest.jobs_to_be_done[0]).toMatchObject({
      kind: "trade",
      job: "Agence de voyages à Annecy",
      lead_type: "quote",
    });
    const products = digest.jobs_to_be_done.filter((job) => job.kind === "product");
    expect(products.map((job) => job.kind === "product" && job.price)).toEqual([
      "sur devis",
      "à partir de 1 234,50 €",
      "60,00 € / heure",
    ]);
  });

  it("links every credential with an evidence page and every citable snippet to a source", () => {
    const siret = digest.credentials.find((credential) => credential.key === "siret_verified");
    expect(siret).toMatchObject({
      proof_status: "official_source_verified",
      points: 8,
      evidence_url: `${BASE}/api/verify/siret_verified/${AB_ID}`,
    });
    expect(digest.credentials.find((credential) => credential.key === "rne_verified")).toBeUndefined();
    expect(digest.other_signals).toEqual([
      { key: "rne_verified", status: "expired" },
      { key: "rcp_declared", status: "unverified" },
    ]);
    expect(digest.citable_snippets.length).toBeGreaterThan(5);
    for (const snippet of digest.citable_snippets) {
      expect(snippet.text.length).toBeGreaterThan(10);
      expect(snippet.url).toMatch(/^https:\/\//);
    }
    expect(digest.citable_snippets[0]?.text).toContain(
      "SIRET 73282932000074, vérifié au répertoire SIRENE le 1er mars 2026",
    );
    expect(digest.citable_snippets.some((snippet) => snippet.url.startsWith(`${BASE}/api/clusters/`))).toBe(true);
  });

  it("summarises trust and says how to send a lead", () => {
    expect(digest.trust.score).toBe(
      digest.trust.breakdown.experience +
        digest.trust.breakdown.expertise +
        digest.trust.breakdown.authority +
        digest.trust.breakdown.trust,
    );
    expect(digest.contact).toMatchObject({
      can_contact: true,
      blocked_because: [],
      endpoint: `${BASE}/api/contact/brick`,
      method: "POST",
      required_fields: ["ab_id", "contact_name", "contact_email", "lead_type"],
      sector_fields_path: "metadata",
    });
    expect(digest.contact.example_payload).toMatchObject({ ab_id: AB_ID, lead_type: "quote" });
  });

  it("does not present an unreviewed generated description as the merchant's", () => {
    const profile = tourismProfile();
    profile.merchant.descriptionLlmUnreviewed = true;
    const unreviewed = buildAiDigest(view(profile));
    expect(unreviewed.identity.description).toBeNull();
    expect(unreviewed.identity.description_status).toBe("pending_merchant_review");
    expect(unreviewed.contact.can_contact).toBe(false);
    expect(unreviewed.contact.blocked_because).toEqual(["description_llm_unreviewed"]);
  });

  it("is published in a stable envelope: document time, canonical self link, no request id", () => {
    const rendered = renderAiDigest(view());
    const body = JSON.parse(rendered.body.toString("utf8"));
    expect(body.success).toBe(true);
    expect(body._meta).toEqual({ protocol: "abeille/hateoas", version: "1.0", timestamp: digest.generated_at });
    expect(body._links.self).toBe(`${BASE}/api/merchants/${AB_ID}/ai-digest`);
    expect(body._state.can_contact).toBe(true);
    expect(body._actions.map((action: { rel: string }) => action.rel)).toContain("create_lead");
    expect(body.data).toEqual(digest);
  });
});

describe("ai.md", () => {
  const markdown = buildAiMd(view());

  it("has the technical sections in order, with French merchant content", () => {
    const headings = markdown.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual([
      "## Identité",
      "## Confiance",
      "## Prestations et tarifs",
      "## Horaires",
      "## Questions fréquentes",
      "## Envoyer une demande",
      "## Liens",
    ]);
    expect(markdown.startsWith("# Lac & Montagne Événements — Agence de voyages à Annecy\n")).toBe(true);
    expect(markdown).toContain("- Raison sociale : LAC ET MONTAGNE EVENEMENTS SARL");
    expect(markdown).toContain("| Expérience (experience) |");
    expect(markdown).toContain("**Visite guidée de la vieille ville** — à partir de 1 234,50 €");
    expect(markdown).toContain("| lundi | 09:00-12:00, 14:00-18:00 |");
    expect(markdown).toContain(`${BASE}/api/verify/siret_verified/${AB_ID}`);
    expect(markdown).toContain("**Comment contacter l'agence ?**");
    expect(markdown.endsWith("\n")).toBe(true);
  });

  it("shows how to send a lead with an example body that parses", () => {
    expect(markdown).toContain(`\`POST ${BASE}/api/contact/brick\``);
    const example = /```json\n([\s\S]*?)\n```/.exec(markdown)?.[1] ?? "";
    expect(JSON.parse(example)).toMatchObject({ ab_id: AB_ID, lead_type: "quote", metadata: { nb_participants: 25 } });
  });

  it("links the JSON-LD, the manifest and the decision card", () => {
    expect(markdown).toContain(`- JSON-LD (Schema.org) : ${BASE}/api/merchants/${AB_ID}/jsonld`);
    expect(markdown).toContain(`- Manifeste de vérification (JWS signé) : ${BASE}/api/registry/verify/${AB_ID}`);
    expect(markdown).toContain(`- Fiche de décision (decision card) : ${BASE}/api/merchants/${AB_ID}/decision-card`);
  });

  it("says why contact is closed and keeps an unreviewed description out", () => {
    const profile = tourismProfile();
    profile.merchant.descriptionLlmUnreviewed = true;
    const closed = buildAiMd(view(profile));
    expect(closed).not.toContain("séminaires et séjours de groupe autour du lac");
    expect(closed).toContain("attend la validation du commerçant");
    expect(closed).toContain("Contact désactivé pour le moment");
    expect(closed).toContain("description_llm_unreviewed");
    expect(closed).not.toContain("```json");
  });

  it("escapes merchant text so it cannot change the document's structure", () => {
    expect(escapeMarkdown("A *b* [c](d) <e> | #f\nnext")).toBe("A \\*b\\* \\[c\\](d) \\<e\\> \\| \\#f next");
    const profile = tourismProfile();
    profile.merchant.businessName = "Chez <Bob> *gras*";
    expect(buildAiMd(view(profile))).toContain("# Chez \\<Bob\\> \\*gras\\* —");
  });

  it("is text/markdown in UTF-8", () => {
    expect(renderAiMd(view()).contentType).toBe("text/markdown; charset=utf-8");
  });
});

describe("Q&A clusters", () => {
  it("lists every cluster with its URL", () => {
    const list = buildClusterList(view());
    expect(clusterListSchema.parse(list)).toEqual(list);
    expect(list.clusters).toEqual([
      {
        cluster_id: "0c5e2f7a-1b2c-4d3e-8f4a-5b6c7d8e9f01",
        label: "Questions fréquentes",
        type: "custom",
        scope: "merchant",
        brick_id: null,
        node_count: 2,
        url: `${BASE}/api/clusters/0c5e2f7a-1b2c-4d3e-8f4a-5b6c7d8e9f01`,
      },
      {
        cluster_id: "3f8b5cad-4e5f-4a7b-9c2d-8e9f0a1b2c34",
        label: "Séminaire au bord du lac : prix et délais",
        type: "custom",
        scope: "brick",
        brick_id: `brk_${AB_ID}_seminaire-lac`,
        node_count: 0,
        url: `${BASE}/api/clusters/3f8b5cad-4e5f-4a7b-9c2d-8e9f0a1b2c34`,
      },
    ]);
  });

  it("gives one cluster with its nodes and a verification summary", () => {
    const profile = tourismProfile();
    const cluster = profile.clusters[0];
    if (!cluster) throw new Error("fixture has clusters");
    const document = buildClusterDocument(view(profile), cluster);
    expect(clusterDocumentSchema.parse(document)).toEqual(document);
    expect(document.nodes[0]).toMatchObject({
      confidence: "verified",
      cite_url: `${BASE}/api/clusters/${cluster.clusterId}#${cluster.nodes[0]?.nodeId}`,
      grounding: { grounded: true },
    });
    expect(document.verification).toEqual({
      status: "partially_human_verified",
      node_count: 2,
      by_verification_level: { human_verified: 1, unverified: 1 },
      by_fact_level: { declared: 1, verified: 1 },
      by_confidence: { verified: 1, observed: 0, declared: 1 },
      human_verified_count: 1,
      merchant_reviewed_count: 0,
      edited_by_merchant_count: 1,
      grounded_count: 1,
      drift_count: 1,
      last_human_verified_at: "2026-04-26T10:00:00.000Z",
    });
    expect(verificationSummary([], []).status).toBe("empty");
  });
});

describe("published decision card", () => {
  it("carries the document time instead of the clock, and keeps the domain's content hash", () => {
    const first = buildPublishedDecisionCard(view());
    const later = buildPublishedDecisionCard(view(tourismProfile(), { now: new Date("2026-05-20T18:00:00.000Z") }));
    expect(first.decision_card.generated_at).toBe(first.decision_card.provenance.manifest_generated_at);
    expect(first.decision_card.generated_at).toBe(later.decision_card.generated_at);
    expect(first.decision_card.content_hash).toBe(later.decision_card.content_hash);
    expect(
      renderDecisionCard(view()).body.equals(
        renderDecisionCard(view(tourismProfile(), { now: new Date("2026-05-20T18:00:00.000Z") })).body,
      ),
    ).toBe(true);
  });
});

describe("published decision card, printed", () => {
  it("parses back to the card, each of the card's members printed once as the canonical text its hash read", () => {
    const card = buildPublishedDecisionCard(view());
    const body = renderDecisionCard(view(), card).body.toString("utf8");
    expect((JSON.parse(body) as { data: unknown }).data).toEqual(JSON.parse(JSON.stringify(card)));
    const identity = `"identity":${canonicalJson(card.decision_card.identity)}`;
    // In the card and at the top of the document (the same object), both times the canonical text.
    expect(body.split(identity)).toHaveLength(3);
    expect(body).toContain(`"verification_capsule":${canonicalJson(card.decision_card.verification_capsule)}`);
    // The document keeps its own member order: the card first, as the spec shows it.
    expect(body.startsWith('{"success":true,"data":{"decision_card":{"version":')).toBe(true);
  });
});

describe("French formatting", () => {
  it("writes amounts, prices and dates as a French reader expects", () => {
    expect(formatAmountFr(123450, "EUR")).toBe("1 234,50 €");
    expect(formatAmountFr(5, "EUR")).toBe("0,05 €");
    expect(formatAmountFr(100000000, "USD")).toBe("1 000 000,00 USD");
    expect(formatPriceFr({ priceCents: null, currency: "EUR", pricingModel: "fixed" })).toBe("sur devis");
    expect(formatDateFr("2026-03-01T08:00:00.000Z")).toBe("1er mars 2026");
    expect(formatDateFr("2026-12-25")).toBe("25 décembre 2026");
  });
});

describe("an address the record leaves partly empty", () => {
  it("is printed without the empty part in ai.md, the AI digest and the microsite", () => {
    const profile = tourismProfile();
    profile.merchant = { ...profile.merchant, street: "", postalCode: "33410", city: "Cadillac-sur-Garonne" };
    const merchantView = view(profile);
    expect(buildAiMd(merchantView)).toContain("- Adresse : 33410 Cadillac-sur-Garonne\n");
    expect(buildAiDigest(merchantView).identity.address).toBe("33410 Cadillac-sur-Garonne");
    expect(buildMicrosite(merchantView, { token: "p".repeat(43) })).toContain("<dd>33410 Cadillac-sur-Garonne</dd>");
  });
});
