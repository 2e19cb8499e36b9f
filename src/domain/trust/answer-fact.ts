import type { QaNode } from "../merchant.ts";
import { proofStatusFor, type SignalStatus, signalDefinition } from "./signal-catalog.ts";
import { signalCountsAt, signalStatusAt } from "./signal-expiry.ts";

/**
 * How far a Q&A answer's facts are backed at an instant: the one rule every surface reads (the
 * decision card's knowledge capsule and clusters, the published Q&A clusters and their summary,
 * the merchant's page, ai.md, the AI digest, the merchant space).
 *
 * - What the merchant wrote (`edited_by_merchant`) is the merchant's declaration, whatever level
 *   the node had before: the merchant's words are never "verified".
 * - A verified level is only as good as the signal it rests on (`fact_signal`): it reads verified
 *   while that signal counts (signal-expiry.ts: verified and not expired) and is one an official
 *   source proves; otherwise (expired, failed, gone, none named) it reads declared.
 * - An observed level stays observed; anything else is declared.
 */
export type FactConfidence = "declared" | "observed" | "verified";

/** What the signal an answer rests on says at the instant; `absent`: the merchant has no such signal. */
export type RestingSignalStatus = SignalStatus | "absent";

export interface AnswerFact {
  /** Published as the node's `fact_level` and `confidence`; `grounded` when not declared. */
  confidence: FactConfidence;
  /** The signal a verified level rests on, and what it says now (null: the level rests on none). */
  restsOn: { signal: string; status: RestingSignalStatus; expiresAt: string | null } | null;
}

/** The verification level of an answer the merchant itself read (vouched for or corrected). */
export const MERCHANT_REVIEWED = "merchant_reviewed";

interface RestingSignal {
  key: string;
  status: string;
  expiresAt?: string | null;
}

/** What a stored fact level claims before its evidence is read (older rows use other words). */
function claimedConfidence(factLevel: string): FactConfidence {
  switch (factLevel) {
    case "verified":
    case "official_source":
    case "official_source_verified":
    case "human_verified":
      return "verified";
    case "observed":
    case "machine_consistent":
    case "platform_observed":
      return "observed";
    default:
      return "declared";
  }
}

/** Whether a signal can make an answer verified: one an official source proves (official register or file). */
export function canGroundVerifiedAnswer(signalKey: string): boolean {
  const definition = signalDefinition(signalKey);
  return definition !== undefined && proofStatusFor(definition.source) === "official_source_verified";
}

/** The answer's facts at `nowIso`, from the node and the merchant's signals (see above). */
export function answerFactAt(
  node: Pick<QaNode, "factLevel" | "factSignal" | "editedByMerchant">,
  signals: readonly RestingSignal[],
  nowIso: string,
): AnswerFact {
  if (node.editedByMerchant) return { confidence: "declared", restsOn: null };
  const claimed = claimedConfidence(node.factLevel);
  if (claimed !== "verified") return { confidence: claimed, restsOn: null };
  if (node.factSignal === null) return { confidence: "declared", restsOn: null };
  const signal = signals.find((candidate) => candidate.key === node.factSignal);
  const counts = signal !== undefined && canGroundVerifiedAnswer(signal.key) && signalCountsAt(signal, nowIso);
  return {
    confidence: counts ? "verified" : "declared",
    restsOn: {
      signal: node.factSignal,
      status: signal
        ? signalStatusAt({ status: signal.status as SignalStatus, expiresAt: signal.expiresAt }, nowIso)
        : "absent",
      expiresAt: signal?.expiresAt ?? null,
    },
  };
}

const CONFIDENCE_RANK: Record<FactConfidence, number> = { verified: 0, observed: 1, declared: 2 };

/** Best-backed first: for sorting answers (verified, then observed, then declared). */
export function confidenceRank(confidence: FactConfidence): number {
  return CONFIDENCE_RANK[confidence];
}
