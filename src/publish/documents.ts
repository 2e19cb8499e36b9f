import type { DecisionCardDocument } from "../schemas/decision-card.ts";
import { aiDigestText, renderAiDigest } from "./ai-digest.ts";
import { buildAiMd, renderAiMd } from "./ai-md.ts";
import { decisionCardText, renderDecisionCard } from "./decision-card.ts";
import type { RenderedDocument } from "./document.ts";
import { jsonLdText, renderJsonLd } from "./jsonld.ts";
import type { MerchantView } from "./view.ts";

/**
 * The documents the refresh job prerenders for every published merchant, and where each one lives
 * in the publish folder: exactly its public URL path, so any static server or CDN can serve the
 * folder as it is (the content types come from the generated `_headers` / nginx snippet, see
 * static-config.ts, since the paths have no file extension).
 */
export const MERCHANT_DOCUMENT_KINDS = ["jsonld", "ai-digest", "decision-card", "ai-md"] as const;
export type MerchantDocumentKind = (typeof MERCHANT_DOCUMENT_KINDS)[number];
/** The daily snapshot manifest, signed (its bytes change on every issue: fresh nonce and dates). */
export type PublishedKind = MerchantDocumentKind | "snapshot";
export const PUBLISHED_KINDS: readonly PublishedKind[] = [...MERCHANT_DOCUMENT_KINDS, "snapshot"];

export function publishedPath(kind: PublishedKind, abId: string): string {
  switch (kind) {
    case "jsonld":
      return `api/merchants/${abId}/jsonld`;
    case "ai-digest":
      return `api/merchants/${abId}/ai-digest`;
    case "decision-card":
      return `api/merchants/${abId}/decision-card`;
    case "ai-md":
      return `m/${abId}/ai.md`;
    case "snapshot":
      return `api/registry/verify/${abId}/snapshot`;
  }
}

/** The merchant folders a published merchant owns (deleted as a whole on withdrawal). */
export function merchantFolders(abId: string): string[] {
  return [`api/merchants/${abId}`, `m/${abId}`, `api/registry/verify/${abId}`];
}

export const KEY_SET_PATH = ".well-known/ab-public-keys.json";

/** One renderer per kind: what the endpoint answers and what the job writes, from the same view. */
export const MERCHANT_RENDERERS: Record<MerchantDocumentKind, (view: MerchantView) => RenderedDocument> = {
  jsonld: renderJsonLd,
  "ai-digest": renderAiDigest,
  "decision-card": (view) => renderDecisionCard(view),
  "ai-md": renderAiMd,
};

/**
 * The texts of MERCHANT_RENDERERS' documents, the decision card given (the refresh assembles it
 * once for the card and the snapshot manifest): the refresh encodes each into one buffer it keeps
 * (document.ts utf8Writer) instead of a buffer a document.
 */
export const MERCHANT_TEXTS: Record<MerchantDocumentKind, (view: MerchantView, card: DecisionCardDocument) => string> =
  {
    jsonld: jsonLdText,
    "ai-digest": aiDigestText,
    "decision-card": decisionCardText,
    "ai-md": buildAiMd,
  };

/** Which published kind (and merchant) a request path names, or null. */
export function matchPublishedPath(pathname: string, search: string): { kind: PublishedKind; abId: string } | null {
  const merchantDoc = /^\/api\/merchants\/(ab_[a-z0-9]{8})\/(jsonld|ai-digest|decision-card)$/.exec(pathname);
  // Documents answer the same bytes whatever the query string (their _links.self is canonical).
  if (merchantDoc) return { kind: merchantDoc[2] as MerchantDocumentKind, abId: merchantDoc[1] as string };
  const aiMd = /^\/m\/(ab_[a-z0-9]{8})\/ai\.md$/.exec(pathname);
  if (aiMd) return { kind: "ai-md", abId: aiMd[1] as string };
  const verify = /^\/api\/registry\/verify\/(ab_[a-z0-9]{8})(\/snapshot)?$/.exec(pathname);
  if (verify) {
    const abId = verify[1] as string;
    if (verify[2] && search === "") return { kind: "snapshot", abId };
    if (!verify[2] && (search === "?snapshot=1" || search === "?snapshot=true")) return { kind: "snapshot", abId };
  }
  return null;
}
