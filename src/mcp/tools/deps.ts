import { merchantLinks } from "../../domain/links.ts";

export { resolveDeps, searchDeps } from "../../wiring.ts";

/** The links every tool answer about one merchant carries (from the URL table, src/domain/links.ts). */
export function toolMerchantLinks(baseUrl: string, abId: string): Record<string, string> {
  const links = merchantLinks(baseUrl, abId);
  return { canonical: links.resolve, alternate: links.aiMd, decision_card: links.decisionCard };
}
