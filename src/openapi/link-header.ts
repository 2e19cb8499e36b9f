import type { Reply } from "../http/reply.ts";
import { AB_ID_PATTERN } from "../schemas/common.ts";

/**
 * The `Link` header of every routed answer (RFC 8288): `describedby` to the OpenAPI document, and
 * on merchant resources `alternate` to the merchant's Markdown snapshot, so an agent holding any
 * answer can find the API description and the LLM-friendly view of the merchant.
 */
export interface DiscoveryLinks {
  describedby: string;
  /** Only on successful answers about a merchant (not on its own ai.md). */
  alternate: string | null;
}

export function discoveryLinks(
  baseUrl: string,
  pathname: string,
  params: Record<string, string | undefined>,
): DiscoveryLinks {
  const abId = params.ab_id;
  return {
    describedby: `<${baseUrl}/openapi.json>; rel="describedby"; type="application/json"`,
    alternate:
      abId && AB_ID_PATTERN.test(abId) && !pathname.endsWith("/ai.md")
        ? `<${baseUrl}/m/${abId}/ai.md>; rel="alternate"; type="text/markdown"`
        : null,
  };
}

/** Adds the links to an answer, after any link the route set itself. */
export function addDiscoveryLinks(answer: Reply, links: DiscoveryLinks): Reply {
  const own = answer.headers.link;
  const added = links.alternate && answer.status < 400 ? `${links.describedby}, ${links.alternate}` : links.describedby;
  answer.headers.link = own ? `${own}, ${added}` : added;
  return answer;
}
