import { describe, expect, it } from "vitest";
import { prepareEnvelope, renderPrepared, successEnvelope } from "../../src/http/envelope.ts";

const context = (requestId: string, selfUrl: string) => ({
  baseUrl: "http://abeille.test",
  requestId,
  selfUrl,
  now: new Date("2026-11-23T10:00:00.000Z"),
});

describe("a success envelope serialized ahead of its requests", () => {
  const parts = {
    topLevel: {
      merchant: { ab_id: "ab_12345678", name: 'Chez "Self" \u0000self\u0000 & \u0000meta\u0000' },
      products: [{ id: "p1", name: "Pain" }],
    },
    actions: {
      create_lead: {
        rel: "create_lead",
        method: "POST" as const,
        href: "http://abeille.test/api/contact/brick",
        title: "Send a lead",
        fields: [],
      },
    },
    state: {
      trust_score: 61,
      merchant_status: "ACTIVE" as const,
      payment_setup: false,
      can_receive_leads: true,
      can_contact: true,
      can_receive_orders: false,
      can_order: false,
      blocked_because: ["order_rail_disabled"],
    },
    links: { canonical: "http://abeille.test/api/registry/resolve/ab_12345678" },
  };

  it("renders the same bytes as the envelope built for the request, whatever the merchant's text holds", () => {
    const prepared = prepareEnvelope(parts);
    for (const [id, self] of [
      ["r-1", "http://abeille.test/api/registry/resolve/ab_12345678"],
      ["r-2", 'http://abeille.test/api/registry/resolve/ab_12345678?utm="x"'],
    ] as const) {
      expect(renderPrepared(context(id, self), prepared).toString("utf8")).toBe(
        JSON.stringify(successEnvelope(context(id, self), parts)),
      );
    }
  });

  it("has a weak validator that moves with the content and not with the request", () => {
    const one = prepareEnvelope(parts);
    const same = prepareEnvelope(structuredClone(parts));
    const other = prepareEnvelope({ ...parts, state: { ...parts.state, can_contact: false } });
    expect(one.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(same.etag).toBe(one.etag);
    expect(other.etag).not.toBe(one.etag);
  });
});
