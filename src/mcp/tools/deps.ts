export { resolveDeps, searchDeps } from "../../wiring.ts";

/** The links every answer about one merchant carries. */
export function merchantLinks(baseUrl: string, abId: string): Record<string, string> {
  return {
    canonical: `${baseUrl}/api/registry/resolve/${abId}`,
    alternate: `${baseUrl}/m/${abId}/ai.md`,
    decision_card: `${baseUrl}/api/merchants/${abId}/decision-card`,
  };
}
