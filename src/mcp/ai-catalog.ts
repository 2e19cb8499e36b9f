import type { z } from "zod";
import { canonicalJson } from "../domain/canonical-json.ts";
import { utf8Bytes } from "../domain/utf8.ts";
import type { aiCatalogSchema } from "../schemas/discovery.ts";
import { detachedJws } from "../signing/jws.ts";
import type { JwsSigner } from "../signing/key-store.ts";
import {
  DISCOVERY_MAX_AGE_SECONDS,
  publisherHost,
  SERVER_CARD_MEDIA_TYPE,
  SERVICE_NAME,
  serverCardUrl,
} from "./discovery.ts";

/**
 * The AI Catalog (Agent Card Working Group, specVersion 1.0) at /.well-known/ai-catalog.json: the
 * domain's list of AI artifacts, where MCP server discovery moved in 2026. It lists the MCP server
 * card and the A2A agent card by URL; their names, descriptions and versions stay in the cards
 * (the specification asks entries not to repeat them). The document carries a top-level
 * `signature`: a detached JWS (EdDSA, the registry's key, `kid` in the header) over the JCS
 * canonical JSON of the catalog without that member, verifiable from /.well-known/ab-public-keys.json.
 */

export const AI_CATALOG_MEDIA_TYPE = "application/ai-catalog+json";
export const AI_CATALOG_SPEC_VERSION = "1.0";
export const A2A_AGENT_CARD_MEDIA_TYPE = "application/a2a-agent-card+json";
/** The JOSE `typ` of the catalog's signature: a plain JWS in compact form (RFC 7515 4.1.9). */
export const AI_CATALOG_SIGNATURE_TYP = "JOSE";

export type AiCatalog = z.output<typeof aiCatalogSchema>;

/** The catalog without its signature: exactly what the signature covers, once canonicalized. */
export function aiCatalog(baseUrl: string): Omit<AiCatalog, "signature"> {
  const host = publisherHost(baseUrl);
  return {
    specVersion: AI_CATALOG_SPEC_VERSION,
    host: {
      displayName: SERVICE_NAME,
      identifier: host,
      documentationUrl: `${baseUrl}/llms.txt`,
    },
    entries: [
      {
        identifier: `urn:air:${host}:mcp:abeille`,
        type: SERVER_CARD_MEDIA_TYPE,
        url: serverCardUrl(baseUrl),
        tags: ["mcp", "merchants", "france", "local-businesses"],
      },
      {
        identifier: `urn:air:${host}:a2a:abeille`,
        type: A2A_AGENT_CARD_MEDIA_TYPE,
        url: `${baseUrl}/.well-known/agent-card.json`,
        tags: ["a2a", "merchants", "france", "local-businesses"],
      },
    ],
  };
}

/** The bytes the catalog's signature covers: the canonical JSON (RFC 8785) of the catalog without `signature`. */
export function aiCatalogSigningPayload(catalog: Omit<AiCatalog, "signature">): Uint8Array {
  return utf8Bytes(canonicalJson(catalog));
}

/**
 * The catalog signed with the key that signs now. Ed25519 signatures are deterministic: the same
 * catalog under the same key gives the same bytes, so its ETag only moves with a new key. The key
 * stays in the key set at least as long as a cache may keep the answer (`expiresAt`).
 */
export function signedAiCatalog(baseUrl: string, signer: JwsSigner, now: Date): AiCatalog {
  const catalog = aiCatalog(baseUrl);
  const signed = signer.signJws(aiCatalogSigningPayload(catalog), {
    typ: AI_CATALOG_SIGNATURE_TYP,
    expiresAt: new Date(now.getTime() + DISCOVERY_MAX_AGE_SECONDS * 1000),
  });
  return { ...catalog, signature: detachedJws(signed.jws) };
}
