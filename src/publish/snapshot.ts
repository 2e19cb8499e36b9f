import type { DecisionCardDocument } from "../schemas/decision-card.ts";
import { manifestActions } from "../signing/actions.ts";
import type { JwsSigner } from "../signing/key-store.ts";
import { issueManifest, manifestAnswer } from "../signing/manifest.ts";
import { JSON_TYPE, jsonWithKnown, type RenderedDocument, renderedDocument, stableEnvelope } from "./document.ts";
import type { MerchantView } from "./view.ts";

export interface IssuedSnapshot {
  /** The document's text: what the refresh encodes (into a buffer it keeps: document.ts utf8Writer). */
  text: string;
  /** The document (its bytes encoded on each read). */
  readonly document: RenderedDocument;
  issuedAt: string;
  expiresAt: string;
}

/** Signs a merchant's daily snapshot manifest; the refresh job writes what it answers. */
export type SnapshotIssuer = (view: MerchantView, card: DecisionCardDocument, now: Date) => IssuedSnapshot;

/**
 * The snapshot manifest (`kind: "snapshot"`, 24 h) cut from the same decision card the job
 * publishes, in the envelope the manifest route answers: `data` is `{ manifest, jws, kid, alg }`.
 * The envelope's time is the issue time; the file changes on every issue (new nonce and dates).
 * `data.manifest` is printed byte for byte as the JWS payload (its canonical JSON).
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
    const data = manifestAnswer(issued);
    const text = stableEnvelope({
      data,
      // The manifest printed as the JWS payload it is (its canonical JSON, already computed).
      dataText: jsonWithKnown(data, new Map([[issued.manifest, issued.payloadText]])),
      actions: manifestActions(view.options.baseUrl, view.profile.merchant.abId, "snapshot"),
      canonical: view.links.snapshot,
      links: { jwks: view.links.jwks, decision_card: view.links.decisionCard },
      state: view.assessment.capabilities.state,
      timestamp: issued.manifest.issued_at,
    });
    return {
      text,
      get document() {
        return renderedDocument(text, JSON_TYPE);
      },
      issuedAt: issued.manifest.issued_at,
      expiresAt: issued.manifest.expires_at,
    };
  };
}
