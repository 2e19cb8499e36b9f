import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AI_USER_AGENTS, detectAiUserAgent } from "../../src/domain/attribution/ai-user-agents.ts";
import { assessEvidence, campaignFromUrl } from "../../src/domain/attribution/evidence.ts";
import {
  ATTRIBUTION_TTL_MS,
  convertSession,
  openSession,
  referrerOriginAndPath,
} from "../../src/domain/attribution/sessions.ts";
import { isServiceError, type ServiceError } from "../../src/errors/service-error.ts";
import { convertSessionBodySchema, openSessionBodySchema } from "../../src/schemas/attribution.ts";
import { seedDemoRegistry } from "../../src/seed/seed-demo.ts";
import { type AttributionRepository, createAttributionRepository } from "../../src/store/attribution-repository.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { createMerchantRepository, type MerchantRepository } from "../../src/store/merchant-repository.ts";

const NOW = new Date("2026-11-01T10:00:00.000Z");
let dir: string;
let db: Db;
let attribution: AttributionRepository;
let merchants: MerchantRepository;
let abId: string;
let otherAbId: string;
let clock = NOW.getTime();
const deps = () => ({ attribution, merchants, now: () => new Date(clock) });

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "abeille-attribution-"));
  db = openDatabase(path.join(dir, "abeille.db"));
  const summary = await seedDemoRegistry(db, { count: 40, seed: 3, now: NOW, dataDir: dir, rosterFile: null });
  attribution = createAttributionRepository(db);
  merchants = createMerchantRepository(db);
  [abId = "", otherAbId = ""] = summary.roster.cases.active_contactable;
}, 60_000);
afterAll(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A lead row as the lead service writes it (only what attribution reads matters). */
function insertLead(merchant: string, agentId: string | null = null): string {
  const leadId = randomUUID();
  db.$client
    .prepare(
      "INSERT INTO leads (lead_id, ab_id, lead_type, contact_name, contact_email, tracking_status, created_at, agent_id) VALUES (?, ?, 'contact', 'X', 'x@example.fr', 'received', ?, ?)",
    )
    .run(leadId, merchant, NOW.toISOString(), agentId);
  return leadId;
}

async function failure(run: () => unknown): Promise<ServiceError> {
  try {
    await run();
  } catch (error) {
    if (isServiceError(error)) return error;
    throw error;
  }
  throw new Error("expected a ServiceError");
}

describe("AI user agents", () => {
  it.each([
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
      "GPTBot",
    ],
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
      "ChatGPT-User",
    ],
    ["Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)", "OAI-SearchBot"],
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
      "ClaudeBot",
    ],
    ["Mozilla/5.0 (compatible; Claude-User/1.0; +Claude-User@anthropic.com)", "Claude-User"],
    ["Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "PerplexityBot"],
    ["Mozilla/5.0 (compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", "Perplexity-User"],
    ["meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", "meta-externalagent"],
    [
      "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)",
      "Bytespider",
    ],
    ["Mozilla/5.0 (compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)", "MistralAI-User"],
    ["cohere-training-data-crawler/1.0", "cohere-training-data-crawler"],
  ])("recognises %s", (userAgent, family) => {
    expect(detectAiUserAgent(userAgent)?.family).toBe(family);
  });

  it("ignores browsers, search engines and look-alikes", () => {
    for (const userAgent of [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36",
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
      "NotGPTBotAtAll/1.0",
      "",
    ]) {
      expect(detectAiUserAgent(userAgent)).toBeNull();
    }
    expect(new Set(AI_USER_AGENTS.map((agent) => agent.family.toLowerCase())).size).toBe(AI_USER_AGENTS.length);
  });
});

describe("evidence", () => {
  it("takes the strongest level present", () => {
    const bot = "Mozilla/5.0 (compatible; GPTBot/1.2)";
    expect(assessEvidence({ userAgent: bot, referrer: "https://x.fr/", campaign: { source: "a" } })).toEqual({
      level: "bot_user_agent",
      levels: ["bot_user_agent", "campaign", "referrer"],
      userAgentFamily: "GPTBot",
    });
    expect(assessEvidence({ userAgent: null, referrer: "https://x.fr/", campaign: { source: "a" } }).level).toBe(
      "campaign",
    );
    expect(assessEvidence({ userAgent: "curl/8", referrer: "https://x.fr/", campaign: {} }).level).toBe("referrer");
    expect(assessEvidence({ userAgent: "curl/8", referrer: null, campaign: {} }).level).toBeNull();
  });

  it("reads utm_* from a landing URL and keeps only origin and path of a referrer", () => {
    expect(campaignFromUrl("https://shop.fr/p?utm_source=chatgpt.com&utm_medium=ai&x=1")).toEqual({
      source: "chatgpt.com",
      medium: "ai",
    });
    expect(campaignFromUrl("not a url")).toEqual({});
    expect(referrerOriginAndPath("https://chatgpt.com/c/123?email=a@b.fr#frag")).toBe("https://chatgpt.com/c/123");
  });
});

describe("sessions", () => {
  it("opens a session with its expiry, the agent and the merchant", async () => {
    const input = openSessionBodySchema.parse({ ab_id: abId, referrer: "https://www.perplexity.ai/search?q=pain" });
    const session = await openSession(
      deps(),
      input,
      { agentId: "agt_a" },
      "Mozilla/5.0 (compatible; PerplexityBot/1.0)",
    );
    expect(session).toMatchObject({
      evidence_level: "bot_user_agent",
      evidence: ["bot_user_agent", "referrer"],
      user_agent_family: "PerplexityBot",
      ab_id: abId,
      agent_id: "agt_a",
    });
    expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(ATTRIBUTION_TTL_MS);
    const stored = attribution.findById(session.session_id);
    expect(stored?.referrer).toBe("https://www.perplexity.ai/search");
  });

  it("refuses a session without evidence, for an unknown merchant, or with both campaign forms", async () => {
    const none = await failure(() => openSession(deps(), openSessionBodySchema.parse({}), { agentId: null }, "curl/8"));
    expect(none.code).toBe("VALIDATION_ERROR");
    const unknown = await failure(() =>
      openSession(
        deps(),
        openSessionBodySchema.parse({ ab_id: "ab_zzzzzzzz", utm_source: "x" }),
        { agentId: null },
        null,
      ),
    );
    expect(unknown.code).toBe("MERCHANT_NOT_FOUND");
    expect(openSessionBodySchema.safeParse({ utm_source: "a", campaign: { source: "b" } }).success).toBe(false);
    expect(openSessionBodySchema.safeParse({ referrer: "nope" }).success).toBe(false);
    expect(openSessionBodySchema.safeParse({ utm_source: "a", unknown: 1 }).success).toBe(false);
  });

  it("converts once, then answers 409; unknown sessions and leads are 404", async () => {
    const session = await openSession(
      deps(),
      openSessionBodySchema.parse({ ab_id: abId, utm_source: "gpt" }),
      { agentId: null },
      null,
    );
    const leadId = insertLead(abId);
    const conversion = convertSession(deps(), { session_id: session.session_id, lead_id: leadId }, { agentId: null });
    expect(conversion).toMatchObject({
      conversion: "lead",
      lead_id: leadId,
      order_id: null,
      evidence_level: "campaign",
    });
    const again = await failure(() =>
      convertSession(deps(), { session_id: session.session_id, lead_id: leadId }, { agentId: null }),
    );
    expect(again.code).toBe("CONFLICT");
    expect(again.details.blockedBecause).toEqual(["session_already_converted"]);

    const unknownSession = await failure(() =>
      convertSession(deps(), { session_id: randomUUID(), lead_id: leadId }, { agentId: null }),
    );
    expect(unknownSession.code).toBe("NOT_FOUND");
    const fresh = await openSession(
      deps(),
      openSessionBodySchema.parse({ utm_source: "gpt" }),
      { agentId: null },
      null,
    );
    const unknownLead = await failure(() =>
      convertSession(deps(), { session_id: fresh.session_id, lead_id: randomUUID() }, { agentId: null }),
    );
    expect(unknownLead.code).toBe("NOT_FOUND");
    const unknownOrder = await failure(() =>
      convertSession(deps(), { session_id: fresh.session_id, order_id: randomUUID() }, { agentId: null }),
    );
    expect(unknownOrder.code).toBe("NOT_FOUND");
  });

  it("converts an agent's session for that agent only, with its own lead of the session's merchant; anything else reveals nothing", async () => {
    const session = await openSession(
      deps(),
      openSessionBodySchema.parse({ ab_id: abId, utm_source: "x" }),
      { agentId: "agt_a" },
      null,
    );
    const convertWith = (leadId: string, agentId: string | null) => () =>
      convertSession(deps(), { session_id: session.session_id, lead_id: leadId }, { agentId });
    const own = insertLead(abId, "agt_a");
    const anonymous = await failure(convertWith(own, null));
    expect([anonymous.code, anonymous.message]).toEqual([
      "FORBIDDEN",
      "This attribution session was opened by an agent; convert it with that agent's API key",
    ]);
    expect((await failure(convertWith(own, "agt_b"))).code).toBe("FORBIDDEN");
    // Another merchant's lead, another agent's lead, an unknown lead: the same answer, no merchant named.
    for (const leadId of [insertLead(otherAbId, "agt_a"), insertLead(abId, "agt_b"), insertLead(abId), randomUUID()]) {
      const refused = await failure(convertWith(leadId, "agt_a"));
      expect([refused.code, refused.message]).toEqual([
        "NOT_FOUND",
        `No lead ${leadId} this session can be converted with (a lead of the session's merchant, sent by this caller)`,
      ]);
    }

    clock += ATTRIBUTION_TTL_MS;
    const expired = await failure(convertWith(own, "agt_a"));
    clock = NOW.getTime();
    expect(expired.code).toBe("CONFLICT");
    expect(expired.details.blockedBecause).toEqual(["session_expired"]);
    expect(convertSession(deps(), { session_id: session.session_id, lead_id: own }, { agentId: "agt_a" }).lead_id).toBe(
      own,
    );
  });

  it("takes exactly one of lead_id and order_id", () => {
    const session_id = randomUUID();
    expect(convertSessionBodySchema.safeParse({ session_id, lead_id: randomUUID() }).success).toBe(true);
    expect(convertSessionBodySchema.safeParse({ session_id, order_id: randomUUID() }).success).toBe(true);
    expect(convertSessionBodySchema.safeParse({ session_id }).success).toBe(false);
    expect(
      convertSessionBodySchema.safeParse({ session_id, lead_id: randomUUID(), order_id: randomUUID() }).success,
    ).toBe(false);
    expect(convertSessionBodySchema.safeParse({ session_id: "x", lead_id: randomUUID() }).success).toBe(false);
  });
});
