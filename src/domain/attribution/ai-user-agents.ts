/**
 * Known AI-agent user agents (crawlers, assistants fetching on a user's behalf, search bots of AI
 * products), in one place. The family is the product token as the operator documents it; matching
 * is on that token anywhere in the User-Agent header, case-insensitive.
 * Not listed on purpose: plain search-engine crawlers (Googlebot, bingbot), which are not AI
 * agents; robots.txt-only tokens (Google-Extended, Applebot-Extended) are listed for completeness
 * although their operators do not send them as a User-Agent.
 */
export interface AiUserAgent {
  family: string;
  operator: string;
  /** crawler: collects content; assistant: fetches for a user now; search: AI search index. */
  kind: "crawler" | "assistant" | "search";
}

export const AI_USER_AGENTS: readonly AiUserAgent[] = [
  { family: "GPTBot", operator: "OpenAI", kind: "crawler" },
  { family: "ChatGPT-User", operator: "OpenAI", kind: "assistant" },
  { family: "ChatGPT-Agent", operator: "OpenAI", kind: "assistant" },
  { family: "OAI-SearchBot", operator: "OpenAI", kind: "search" },
  { family: "ClaudeBot", operator: "Anthropic", kind: "crawler" },
  { family: "Claude-User", operator: "Anthropic", kind: "assistant" },
  { family: "Claude-SearchBot", operator: "Anthropic", kind: "search" },
  { family: "Claude-Web", operator: "Anthropic", kind: "assistant" },
  { family: "anthropic-ai", operator: "Anthropic", kind: "crawler" },
  { family: "PerplexityBot", operator: "Perplexity", kind: "search" },
  { family: "Perplexity-User", operator: "Perplexity", kind: "assistant" },
  { family: "Google-Extended", operator: "Google", kind: "crawler" },
  { family: "Google-CloudVertexBot", operator: "Google", kind: "crawler" },
  { family: "Gemini-Deep-Research", operator: "Google", kind: "assistant" },
  { family: "Applebot-Extended", operator: "Apple", kind: "crawler" },
  { family: "meta-externalagent", operator: "Meta", kind: "crawler" },
  { family: "meta-externalfetcher", operator: "Meta", kind: "assistant" },
  { family: "Bytespider", operator: "ByteDance", kind: "crawler" },
  { family: "cohere-ai", operator: "Cohere", kind: "assistant" },
  { family: "cohere-training-data-crawler", operator: "Cohere", kind: "crawler" },
  { family: "MistralAI-User", operator: "Mistral AI", kind: "assistant" },
  { family: "Amazonbot", operator: "Amazon", kind: "crawler" },
  { family: "DuckAssistBot", operator: "DuckDuckGo", kind: "assistant" },
  { family: "YouBot", operator: "You.com", kind: "search" },
  { family: "PhindBot", operator: "Phind", kind: "search" },
  { family: "AI2Bot", operator: "Allen Institute for AI", kind: "crawler" },
  { family: "CCBot", operator: "Common Crawl", kind: "crawler" },
  { family: "Diffbot", operator: "Diffbot", kind: "crawler" },
  { family: "Timpibot", operator: "Timpi", kind: "crawler" },
  { family: "Kangaroo Bot", operator: "Kangaroo LLM", kind: "crawler" },
];

const escapeRegExp = (token: string) => token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// Longest tokens first, so "cohere-training-data-crawler" wins over "cohere-ai" and "Claude-User" over shorter ones.
const ordered = [...AI_USER_AGENTS].sort((a, b) => b.family.length - a.family.length);
const PATTERN = new RegExp(
  `(?:^|[^A-Za-z0-9-])(${ordered.map((agent) => escapeRegExp(agent.family)).join("|")})(?![A-Za-z0-9-])`,
  "i",
);
const BY_TOKEN = new Map(AI_USER_AGENTS.map((agent) => [agent.family.toLowerCase(), agent]));

/** The AI agent a User-Agent header names, or null. */
export function detectAiUserAgent(userAgent: string | null | undefined): AiUserAgent | null {
  if (!userAgent) return null;
  const match = PATTERN.exec(userAgent.slice(0, 1024));
  return match?.[1] ? (BY_TOKEN.get(match[1].toLowerCase()) ?? null) : null;
}
