/**
 * People read words, not codes: every code a page can show has its French label (a code without
 * one would be printed as is, as "retrait boutique" or "evenement" were).
 */
import { describe, expect, it } from "vitest";
import { CONTACT_REASONS } from "../../src/domain/capabilities.ts";
import { LEAD_TYPES } from "../../src/domain/lead-contract.ts";
import { SECTOR_KEYS, sectors } from "../../src/domain/sectors.ts";
import {
  BLOCKED_REASON_FR,
  LANGUAGE_LABELS_FR,
  LEAD_TYPE_LABELS_FR,
  PROOF_LABELS_FR,
  STATUS_LABELS_FR,
} from "../../src/publish/format-fr.ts";
import { merchantStatusSchema } from "../../src/schemas/envelope.ts";
import { merchantVocabulary } from "../../src/schemas/merchant-declaration.ts";

const missing = (codes: readonly string[], labels: Readonly<Record<string, string>>) =>
  codes.filter((code) => !labels[code]);

describe("French labels", () => {
  it("name every status, contact refusal, proof, lead type and declared language", () => {
    expect(missing(merchantStatusSchema.options, STATUS_LABELS_FR)).toEqual([]);
    expect(missing(CONTACT_REASONS, BLOCKED_REASON_FR)).toEqual([]);
    expect(missing(["official_source_verified", "machine_consistent", "merchant_declared"], PROOF_LABELS_FR)).toEqual(
      [],
    );
    expect(missing(LEAD_TYPES, LEAD_TYPE_LABELS_FR)).toEqual([]);
    expect(missing(merchantVocabulary.languages, LANGUAGE_LABELS_FR)).toEqual([]);
  });

  it("name every option of every sector field, in French words rather than the code", () => {
    for (const key of SECTOR_KEYS) {
      for (const field of sectors[key].leadFields) {
        if (field.type !== "enum") continue;
        const labels = field.optionLabels ?? {};
        expect(missing(field.options ?? [], labels), `${key}.${field.name}`).toEqual([]);
        for (const option of field.options ?? [])
          expect(labels[option], `${key}.${field.name}.${option}`).not.toBe(option);
      }
    }
    expect(sectors.alimentation.leadFields.find((field) => field.name === "type_commande")?.optionLabels).toEqual({
      retrait_boutique: "Retrait en boutique",
      livraison: "Livraison",
      evenement: "Événement",
    });
  });
});
