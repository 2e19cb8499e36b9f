import { describe, expect, it } from "vitest";
import { MERCHANT_DOCUMENT_KINDS, MERCHANT_RENDERERS } from "../../src/publish/documents.ts";
import { contentPeriod } from "../../src/publish/period.ts";
import { merchantView } from "../../src/publish/view.ts";
import { NOW, options, tourismProfile } from "./publish-fixtures.ts";

const at = (iso: string) => new Date(iso);

function renderAll(now: Date) {
  const view = merchantView(tourismProfile(), options({ now }));
  return Object.fromEntries(MERCHANT_DOCUMENT_KINDS.map((kind) => [kind, MERCHANT_RENDERERS[kind](view).hash]));
}

describe("content period: documents only change when their content does", () => {
  it("starts at the latest source change or calendar instant passed, and ends at the next one", () => {
    // Sources: latest is the cluster / node review on 26 April; the rne_verified expiry (1 May) is later.
    expect(contentPeriod(tourismProfile(), NOW)).toEqual({
      since: "2026-05-01T00:00:00.000Z",
      until: "2026-06-01T00:00:00.000Z",
    });
    // After the address signal expires on 1 June, the next instant is the website expiry on 1 August.
    expect(contentPeriod(tourismProfile(), at("2026-06-15T00:00:00.000Z"))).toEqual({
      since: "2026-06-01T00:00:00.000Z",
      until: "2026-08-01T00:00:00.000Z",
    });
  });

  it("counts the founding anniversary and New Year as instants (years in business, example dates)", () => {
    const profile = tourismProfile();
    profile.signals = profile.signals.map((signal) => ({ ...signal, expiresAt: null }));
    expect(contentPeriod(profile, at("2027-02-10T00:00:00.000Z"))).toEqual({
      since: "2027-01-01T00:00:00.000Z",
      until: "2027-03-01T00:00:00.000Z",
    });
    expect(contentPeriod(profile, at("2026-12-10T00:00:00.000Z"))).toEqual({
      since: "2026-04-26T10:00:00.000Z",
      until: "2027-01-01T00:00:00.000Z",
    });
  });

  it("a source change moves the start", () => {
    const profile = tourismProfile();
    profile.merchant.updatedAt = "2026-05-09T12:00:00.000Z";
    expect(contentPeriod(profile, NOW).since).toBe("2026-05-09T12:00:00.000Z");
  });

  it("renders identical bytes anywhere inside one period, and new bytes after a signal expires", () => {
    const early = renderAll(at("2026-05-02T00:00:00.000Z"));
    expect(renderAll(at("2026-05-31T23:59:59.000Z"))).toEqual(early);
    const afterExpiry = renderAll(at("2026-06-01T00:00:00.000Z"));
    for (const kind of MERCHANT_DOCUMENT_KINDS) expect(afterExpiry[kind]).not.toBe(early[kind]);
  });
});
