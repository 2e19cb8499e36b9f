import { action } from "../domain/actions.ts";
import type { Action } from "../schemas/envelope.ts";

export const jwksUrl = (baseUrl: string) => `${baseUrl}/.well-known/ab-public-keys.json`;
export const manifestUrl = (baseUrl: string, abId: string) => `${baseUrl}/api/registry/verify/${abId}`;
export const decisionCardUrl = (baseUrl: string, abId: string) => `${baseUrl}/api/merchants/${abId}/decision-card`;

export const jwksAction = (baseUrl: string): Action =>
  action("jwks", "GET", jwksUrl(baseUrl), "Public key set to verify the manifest's signature (match its kid)");

/** The next steps after reading a manifest: check it, read the evidence behind it, get the other kind. */
export function manifestActions(baseUrl: string, abId: string, kind: "live" | "snapshot"): Action[] {
  return [
    jwksAction(baseUrl),
    action("evidence", "GET", `${baseUrl}/api/verify/{signal}/${abId}`, "Evidence behind one signal", [
      { name: "signal", type: "string", required: true },
    ]),
    action(
      "decision_card",
      "GET",
      decisionCardUrl(baseUrl, abId),
      "Decision card (verification_capsule.evidence_endpoints lists every evidence page)",
    ),
    kind === "live"
      ? action("snapshot", "GET", `${manifestUrl(baseUrl, abId)}?snapshot=1`, "Manifest valid for 24 hours")
      : action("live", "GET", manifestUrl(baseUrl, abId), "Manifest valid for 1 hour"),
  ];
}

/** Where to go from one evidence page. */
export function evidenceActions(baseUrl: string, abId: string): Action[] {
  return [
    action("manifest", "GET", manifestUrl(baseUrl, abId), "Signed verification manifest"),
    action(
      "decision_card",
      "GET",
      decisionCardUrl(baseUrl, abId),
      "Decision card (verification_capsule.evidence_endpoints lists every evidence page)",
    ),
    action("resolve", "GET", `${baseUrl}/api/registry/resolve/${abId}`, "Full merchant profile"),
  ];
}
