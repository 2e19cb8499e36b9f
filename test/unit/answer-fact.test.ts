/**
 * How far a Q&A answer's facts are backed at an instant (src/domain/trust/answer-fact.ts): the
 * merchant's own words are declared, a verified level holds only while the official signal it rests
 * on counts (the one expiry rule, signal-expiry.ts), and every surface reads it at its instant, so
 * an answer turns declared when its signal expires with no write, at an instant the published
 * documents already end at.
 */
import { describe, expect, it } from "vitest";
import type { MerchantProfile } from "../../src/domain/merchant.ts";
import { assembleDecisionCard } from "../../src/domain/registry/decision-card.ts";
import { answerFactAt } from "../../src/domain/trust/answer-fact.ts";
import { buildAiDigest } from "../../src/publish/ai-digest.ts";
import { buildAiMd } from "../../src/publish/ai-md.ts";
import { buildClusterDocument } from "../../src/publish/clusters.ts";
import { buildMicrosite } from "../../src/publish/microsite.ts";
import { contentPeriod } from "../../src/publish/period.ts";
import { BASE, NOW, signal, tourismProfile, view } from "./publish-fixtures.ts";

const EXPIRY = "2026-05-20T00:00:00.000Z";
const BEFORE = "2026-05-19T23:59:59.999Z";
const identity = (overrides: { status?: string; expiresAt?: string | null } = {}) => ({
  key: "siret_verified",
  status: "verified",
  expiresAt: EXPIRY,
  ...overrides,
});
const verified = { factLevel: "verified", factSignal: "siret_verified", editedByMerchant: false };

describe("a Q&A answer's facts at an instant", () => {
  it("reads the merchant's own words as declared, whatever level they were recorded at", () => {
    expect(answerFactAt({ ...verified, editedByMerchant: true }, [identity()], BEFORE)).toEqual({
      confidence: "declared",
      restsOn: null,
    });
    expect(
      answerFactAt({ factLevel: "observed", factSignal: null, editedByMerchant: true }, [identity()], BEFORE),
    ).toEqual({ confidence: "declared", restsOn: null });
  });

  it("reads verified while the signal it rests on counts, and declared from that signal's expiry on", () => {
    expect(answerFactAt(verified, [identity()], BEFORE)).toEqual({
      confidence: "verified",
      restsOn: { signal: "siret_verified", status: "verified", expiresAt: EXPIRY },
    });
    expect(answerFactAt(verified, [identity()], EXPIRY)).toEqual({
      confidence: "declared",
      restsOn: { signal: "siret_verified", status: "expired", expiresAt: EXPIRY },
    });
    // A check that failed proves nothing either; a check with no end holds.
    expect(answerFactAt(verified, [identity({ status: "failed" })], BEFORE).confidence).toBe("declared");
    expect(answerFactAt(verified, [identity({ expiresAt: null })], "2099-01-01T00:00:00.000Z").confidence).toBe(
      "verified",
    );
  });

  it("reads declared when a verified level names no signal, one the merchant lacks, or one no official source proves", () => {
    expect(answerFactAt({ ...verified, factSignal: null }, [identity()], BEFORE)).toEqual({
      confidence: "declared",
      restsOn: null,
    });
    expect(answerFactAt(verified, [], BEFORE)).toEqual({
      confidence: "declared",
      restsOn: { signal: "siret_verified", status: "absent", expiresAt: null },
    });
    const rating = { key: "listing_rating", status: "verified", expiresAt: null };
    expect(answerFactAt({ ...verified, factSignal: "listing_rating" }, [rating], BEFORE).confidence).toBe("declared");
    // Older rows' words for a verified level follow the same rule.
    expect(answerFactAt({ ...verified, factLevel: "official_source_verified" }, [identity()], BEFORE).confidence).toBe(
      "verified",
    );
    expect(answerFactAt({ ...verified, factLevel: "official_source_verified" }, [identity()], EXPIRY).confidence).toBe(
      "declared",
    );
  });

  it("keeps an observed level observed, and claims nothing for a declared or unknown one", () => {
    const node = (factLevel: string) => ({ factLevel, factSignal: null, editedByMerchant: false });
    expect(answerFactAt(node("observed"), [], BEFORE)).toEqual({ confidence: "observed", restsOn: null });
    expect(answerFactAt(node("machine_consistent"), [], BEFORE).confidence).toBe("observed");
    expect(answerFactAt(node("declared"), [identity()], BEFORE).confidence).toBe("declared");
    expect(answerFactAt(node("something_new"), [identity()], BEFORE).confidence).toBe("declared");
  });
});

/** The fixture's agency whose identity check (the first answer's signal) ends at EXPIRY. */
function expiringProfile(): MerchantProfile {
  const profile = tourismProfile();
  profile.signals = profile.signals.map((item) =>
    item.key === "siret_verified" ? signal("siret_verified", { expiresAt: EXPIRY }) : item,
  );
  return profile;
}

/** What each surface says of the first (verified) answer and the second (the merchant's) at `now`. */
function surfaces(now: Date) {
  const profile = expiringProfile();
  const merchantView = view(profile, { now });
  const [cluster] = profile.clusters;
  if (!cluster) throw new Error("fixture has clusters");
  const document = buildClusterDocument(merchantView, cluster);
  const card = assembleDecisionCard(profile, merchantView.assessment, { baseUrl: BASE, orderRailEnabled: false, now });
  const aiMd = buildAiMd(merchantView);
  const page = buildMicrosite(merchantView, { token: "p".repeat(43) });
  const digest = buildAiDigest(merchantView);
  return {
    cluster: document.nodes.map((node) => [node.confidence, node.verification.fact_level, node.grounding.grounded]),
    summary: document.verification.by_fact_level,
    restsOn: document.nodes[0]?.verification.rests_on,
    card: card.decision_card.knowledge_capsule.top_questions.map((item) => item.confidence),
    cardNodes: card.merchant_clusters[0]?.nodes.map((node) => node.verification.fact_level),
    aiMd: [...aiMd.matchAll(/^_Niveau de preuve : (.+?)\. Source : /gmu)].map((match) => match[1]),
    page: [...page.matchAll(/<p class="note">([^<]+?)\. <a href="[^"]+\/api\/clusters\//gu)].map((match) => match[1]),
    digest: digest.citable_snippets.filter((item) => item.url.includes("/api/clusters/")).map((item) => item.text),
  };
}

describe("every surface, when the signal an answer rests on expires", () => {
  it("is re-rendered at that instant: the documents' content period and the assessment end there", () => {
    const merchantView = view(expiringProfile());
    expect(contentPeriod(expiringProfile(), NOW).until).toBe(EXPIRY);
    expect(merchantView.period.until).toBe(EXPIRY);
    expect(merchantView.assessment.validUntil).toBe(EXPIRY);
  });

  it("says verified before it and declared from it, and never verified for the merchant's own answer", () => {
    expect(surfaces(new Date(BEFORE))).toEqual({
      cluster: [
        ["verified", "verified", true],
        ["declared", "declared", false],
      ],
      summary: { declared: 1, verified: 1 },
      restsOn: { signal: "siret_verified", status: "verified", expires_at: EXPIRY },
      card: ["verified", "declared"],
      cardNodes: ["verified", "declared"],
      aiMd: [
        "verified, réponse vérifiée : elle repose sur « SIRET vérifié (répertoire SIRENE) », en cours de validité, relue le 26 avril 2026 (human_verified)",
        "declared, réponse rédigée par le commerçant, non vérifiée (unverified)",
      ],
      page: [
        "Réponse vérifiée : elle repose sur « SIRET vérifié (répertoire SIRENE) », en cours de validité, relue le 26 avril 2026",
        "Réponse rédigée par le commerçant, non vérifiée",
      ],
      digest: [
        "Comment contacter l'agence ? Par e-mail ou téléphone en semaine. (réponse vérifiée)",
        "Quel budget prévoir pour un séminaire ? Sur devis, selon le nombre de participants. (réponse déclarative, non vérifiée)",
      ],
    });
    expect(surfaces(new Date(EXPIRY))).toEqual({
      cluster: [
        ["declared", "declared", false],
        ["declared", "declared", false],
      ],
      summary: { declared: 2 },
      restsOn: { signal: "siret_verified", status: "expired", expires_at: EXPIRY },
      card: ["declared", "declared"],
      cardNodes: ["declared", "declared"],
      aiMd: [
        "declared, réponse non vérifiée : la preuve sur laquelle elle repose, « SIRET vérifié (répertoire SIRENE) », a expiré le 20 mai 2026, relue le 26 avril 2026 (human_verified)",
        "declared, réponse rédigée par le commerçant, non vérifiée (unverified)",
      ],
      page: [
        "Réponse non vérifiée : la preuve sur laquelle elle repose, « SIRET vérifié (répertoire SIRENE) », a expiré le 20 mai 2026, relue le 26 avril 2026",
        "Réponse rédigée par le commerçant, non vérifiée",
      ],
      digest: [
        "Comment contacter l'agence ? Par e-mail ou téléphone en semaine. (réponse déclarative, non vérifiée)",
        "Quel budget prévoir pour un séminaire ? Sur devis, selon le nombre de participants. (réponse déclarative, non vérifiée)",
      ],
    });
  });
});
