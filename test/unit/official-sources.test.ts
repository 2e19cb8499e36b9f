/**
 * merchant.sources (src/domain/trust/official-sources.ts): one entry per official source that
 * speaks for a merchant, with when it last said so and when its own record last changed; the
 * signals written before signals named their source are named by their key and kind. Every
 * surface says the same dates: resolve and the decision card carry the entries, the JSON-LD, the
 * AI digest, ai.md and the French merchant page show them.
 */
import { describe, expect, it } from "vitest";
import { assembleDecisionCard } from "../../src/domain/registry/decision-card.ts";
import { officialSources } from "../../src/domain/trust/official-sources.ts";
import { buildAiDigest } from "../../src/publish/ai-digest.ts";
import { buildAiMd } from "../../src/publish/ai-md.ts";
import { buildJsonLd } from "../../src/publish/jsonld.ts";
import { buildMicrosite } from "../../src/publish/microsite.ts";
import { decisionCardDocumentSchema } from "../../src/schemas/decision-card.ts";
import { signal, tourismProfile, view } from "./publish-fixtures.ts";

/** A merchant a SIRENE stock of 1 December confirmed (INSEE last changed it in 2018), with BODACC's failed check. */
function confirmedProfile() {
  const profile = tourismProfile();
  const stock = {
    source: "official_file" as const,
    sourceUrl: "https://www.data.gouv.fr/datasets/base-sirene-des-entreprises-et-de-leurs-etablissements-siren-siret",
    verifiedAt: "2026-12-01T00:00:00.000Z",
    recordedAt: "2026-12-01T00:00:00.000Z",
    expiresAt: "2028-11-30T00:00:00.000Z",
    origin: "sirene" as const,
  };
  profile.signals = [
    signal("siret_verified", { ...stock, changedAt: "2018-05-03T10:20:30.000Z" }),
    signal("company_age_years", { ...stock, value: "2011-09-15", changedAt: "2019-02-01T08:00:00.000Z" }),
    signal("bodacc_clean", {
      source: "official_file",
      status: "failed",
      value: false,
      verifiedAt: "2026-11-28T00:00:00.000Z",
      recordedAt: "2026-11-28T00:00:00.000Z",
      origin: "bodacc",
      changedAt: "2026-11-20T00:00:00.000Z",
      notice: {
        id: "A202600521234",
        publishedOn: "2026-11-20",
        kind: "collective",
        label: "Jugement d'ouverture de redressement judiciaire",
        decidedOn: "2026-11-14",
        court: "Greffe du Tribunal de Commerce de Lyon",
        url: null,
      },
    }),
    signal("contact_email_verified", { source: "platform_observed" }),
  ];
  return profile;
}

const EXPECTED = [
  { source: "sirene", confirmed_at: "2026-12-01T00:00:00.000Z", changed_at: "2019-02-01T08:00:00.000Z" },
  { source: "bodacc", confirmed_at: "2026-11-28T00:00:00.000Z", changed_at: "2026-11-20T00:00:00.000Z" },
];

describe("merchant.sources", () => {
  it("gives one entry per official source, the latest check and the latest change of each, in the catalog's order", () => {
    expect(officialSources(confirmedProfile().signals)).toEqual(EXPECTED);
    // The platform's and the merchant's own signals are no official source.
    expect(officialSources([signal("contact_email_verified", { source: "platform_observed" })])).toEqual([]);
  });

  it("names the sources of signals recorded before signals named them, by their key and kind", () => {
    expect(
      officialSources([
        signal("siret_verified", { source: "official_api", verifiedAt: "2026-10-02T08:00:00.000Z" }),
        signal("company_age_years", { source: "official_file", verifiedAt: "2026-09-01T00:00:00.000Z" }),
        signal("bodacc_clean", {
          source: "official_file",
          verifiedAt: "2026-08-01T00:00:00.000Z",
          notice: {
            id: "B1",
            publishedOn: "2026-07-30",
            kind: "sale",
            label: "Vente",
            decidedOn: null,
            court: null,
            url: null,
          },
        }),
      ]),
    ).toEqual([
      { source: "sirene", confirmed_at: "2026-09-01T00:00:00.000Z", changed_at: null },
      { source: "bodacc", confirmed_at: "2026-08-01T00:00:00.000Z", changed_at: "2026-07-30T00:00:00.000Z" },
      // The live check through the API Recherche d'entreprises was the only API that wrote siret_verified.
      { source: "recherche-entreprises", confirmed_at: "2026-10-02T08:00:00.000Z", changed_at: null },
    ]);
  });

  it("is carried by the decision card, in its core and at the top, and shown with the same dates by every document", () => {
    const profile = confirmedProfile();
    const rendered = view(profile);
    const card = assembleDecisionCard(profile, rendered.assessment, {
      baseUrl: rendered.options.baseUrl,
      now: rendered.options.now,
      orderRailEnabled: false,
    });
    expect(decisionCardDocumentSchema.parse(card).merchant.sources).toEqual(EXPECTED);
    expect(card.decision_card.merchant.sources).toEqual(EXPECTED);

    expect(buildAiDigest(rendered).sources).toEqual(EXPECTED);

    const properties = (
      buildJsonLd(rendered).additionalProperty as { propertyID: string; name: string; value: unknown }[]
    )
      .filter((property) => property.propertyID.startsWith("abeille:sources."))
      .map((property) => [property.propertyID, property.name, property.value]);
    expect(properties).toEqual([
      ["abeille:sources.sirene.confirmed_at", "Répertoire SIRENE (INSEE) : confirmé le", "2026-12-01T00:00:00.000Z"],
      [
        "abeille:sources.sirene.changed_at",
        "Répertoire SIRENE (INSEE) : fiche modifiée par l'INSEE le",
        "2019-02-01T08:00:00.000Z",
      ],
      ["abeille:sources.bodacc.confirmed_at", "BODACC : confirmé le", "2026-11-28T00:00:00.000Z"],
      ["abeille:sources.bodacc.changed_at", "BODACC : annonce publiée le", "2026-11-20T00:00:00.000Z"],
    ]);

    const markdown = buildAiMd(rendered);
    expect(markdown).toContain(
      [
        "### Sources officielles",
        "",
        "- Répertoire SIRENE (INSEE) : confirmé le 1er décembre 2026 (fiche modifiée par l'INSEE le 1er février 2019)",
        "- BODACC : confirmé le 28 novembre 2026 (annonce publiée le 20 novembre 2026)",
        "",
      ].join("\n"),
    );

    const page = buildMicrosite(rendered, { token: "p".repeat(43) });
    expect(page).toContain(
      '<div><dt>Sources officielles</dt><dd><ul class="sources"><li>Répertoire SIRENE (INSEE) : confirmé le 1er décembre 2026 (fiche modifiée par l&#39;INSEE le 1er février 2019)</li><li>BODACC : confirmé le 28 novembre 2026 (annonce publiée le 20 novembre 2026)</li></ul></dd></div>',
    );
  });
});
