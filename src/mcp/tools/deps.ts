import type { App } from "../../app.ts";
import { merchantLinks } from "../../domain/links.ts";
import { loadMerchant } from "../../domain/registry/resolve-merchant.ts";
import { resolveDeps } from "../../wiring.ts";

export { resolveDeps, searchDeps } from "../../wiring.ts";

/**
 * One merchant as the tools about it read it: loaded and assessed at one instant (`now`, which
 * the answer's dates use too), with the registry's dependencies for what the tool builds next.
 */
export async function merchantAtNow(app: App, abId: string) {
  const deps = resolveDeps(app);
  const now = deps.now();
  const { profile, assessment } = await loadMerchant({ ...deps, now: () => now }, abId);
  return { deps, now, profile, assessment, merchant: profile.merchant };
}

/** The links every tool answer about one merchant carries (from the URL table, src/domain/links.ts). */
export function toolMerchantLinks(baseUrl: string, abId: string): Record<string, string> {
  const links = merchantLinks(baseUrl, abId);
  return { canonical: links.resolve, alternate: links.aiMd, decision_card: links.decisionCard };
}
