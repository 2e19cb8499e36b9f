import type { DecisionCardDocument } from "../schemas/decision-card.ts";
import { manifestActions } from "../signing/actions.ts";
import type { JwsSigner } from "../signing/key-store.ts";
import { issueManifest } from "../signing/manifest.ts";
import { JSON_TYPE, type RenderedDocument, renderedDocument, stableEnvelope } from "./document.ts";
import type { MerchantView } from "./view.ts";

export interface IssuedSnapshot {
  document: RenderedDocument;
  issuedAt: string;
  expiresAt: string;
}

/** Signs a merchant's daily snapshot manifest; the refresh job writes what it answers. */
export type SnapshotIssuer = (view: MerchantView, card: DecisionCardDocument, now: Date) => IssuedSnapshot;

/**
 * The snapshot manifest (`kind: "snapshot"`, 24 h) cut from the same decision card the job
 * publishes, in the envelope the manifest route answers: `data` is `{ manifest, jws, kid, alg }`.
 * The envelope's time is the issue time; the file changes on every issue (new nonce and dates).
 */
export function snapshotIssuer(signer: JwsSigner): SnapshotIssuer {
  return (view, card, now) => {
    const issued = issueManifest({
      profile: view.profile,
      assessment: view.assessment,
      baseUrl: view.options.baseUrl,
      now,
      kind: "snapshot",
      card,
      signer,
    });
    const text = stableEnvelope({
      data: { manifest: issued.manifest, jws: issued.jws, kid: issued.kid, alg: issued.alg },
      actions: manifestActions(view.options.baseUrl, view.profile.merchant.abId, "snapshot"),
      canonical: view.links.snapshot,
      links: { jwks: view.links.jwks, decision_card: view.links.decisionCard },
      state: view.assessment.capabilities.state,
      timestamp: issued.manifest.issued_at,
    });
    return {
      document: renderedDocument(text, JSON_TYPE),
      issuedAt: issued.manifest.issued_at,
      expiresAt: issued.manifest.expires_at,
    };
  };
}
