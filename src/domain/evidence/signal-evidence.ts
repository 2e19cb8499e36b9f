/**
 * The evidence page of one verification signal for one merchant: what was recorded, from which
 * source and proof level, when, and what it added to which trust component. A merchant without
 * the signal gets `unverified` (or `not_applicable` outside the signal's sectors), never an error.
 * Pure: the route loads the merchant and its assessment and passes them in.
 */
import type { EvidenceData, EvidenceStatus } from "../../schemas/signing.ts";
import type { Assessment } from "../assess-merchant.ts";
import type { MerchantProfile, Signal } from "../merchant.ts";
import {
  COMPONENT_MAX,
  type EvidenceSignal,
  type ProofStatus,
  proofStatusFor,
  type SignalDefinition,
  signalApplies,
  signalDefinition,
} from "../trust/signal-catalog.ts";
import { signalStatusAt, signalValueAt } from "../trust/signal-expiry.ts";

/** Signals whose recorded value may name or reach a person: the value is never shown. */
const PERSONAL_VALUE_SIGNALS: ReadonlySet<string> = new Set([
  "officer_identity",
  "officer_email_verified",
  "contact_email_verified",
]);

export { evidenceUrl } from "../links.ts";
export { isEvidenceSignal } from "../trust/signal-catalog.ts";

export interface EvidenceInput {
  profile: MerchantProfile;
  /** The merchant's assessment at `now` (its contributions say what each signal counted). */
  assessment: Assessment;
  signal: EvidenceSignal;
  now: Date;
}

export function describeEvidence(input: EvidenceInput): EvidenceData {
  const { profile, assessment, signal, now } = input;
  const { merchant } = profile;
  const definition = signalDefinition(signal);
  if (!definition) throw new Error(`evidence signal ${signal} is missing from the signal catalog`);
  const record = profile.signals.find((candidate) => candidate.key === signal);
  const applies = signalApplies(definition, merchant.sector);
  const status = evidenceStatus(record, applies, now);
  const contribution = assessment.trust.contributions.find((item) => item.signal === signal);
  const points = contribution?.points ?? 0;
  const counted = contribution?.counted ?? 0;
  const personal = PERSONAL_VALUE_SIGNALS.has(signal);
  const proofStatus = record ? proofStatusOf(record) : null;

  return {
    signal,
    label: definition.label,
    ab_id: merchant.abId,
    status,
    proof_status: proofStatus,
    source: record?.source ?? definition.source,
    source_url: record?.sourceUrl ?? templateUrl(definition, merchant.siret),
    verified_at: record?.verifiedAt ?? null,
    recorded_at: record?.recordedAt ?? null,
    expires_at: record?.expiresAt ?? null,
    value: record && !personal ? signalValueAt(record, now) : null,
    value_withheld: personal && record !== undefined && record.value !== null,
    notice: record?.notice
      ? {
          id: record.notice.id,
          published_on: record.notice.publishedOn,
          kind: record.notice.kind,
          label: record.notice.label,
          decided_on: record.notice.decidedOn,
          court: record.notice.court,
          url: record.notice.url,
        }
      : null,
    applies_to: definition.appliesTo ? [...definition.appliesTo] : null,
    contribution: { component: definition.component, rule: definition.rule, points, counted },
    explanation: explain({ definition, record, status, proofStatus, points, counted, sector: merchant.sector }),
  };
}

function evidenceStatus(record: Signal | undefined, applies: boolean, now: Date): EvidenceStatus {
  if (!applies) return "not_applicable";
  if (!record) return "unverified";
  return signalStatusAt(record, now.toISOString());
}

function proofStatusOf(record: Signal): ProofStatus {
  const recorded = record.proofStatus;
  if (
    recorded === "official_source_verified" ||
    recorded === "machine_consistent" ||
    recorded === "merchant_declared"
  ) {
    return recorded;
  }
  return proofStatusFor(record.source);
}

function templateUrl(definition: SignalDefinition, siret: string): string | null {
  if (!definition.sourceUrlTemplate) return null;
  return definition.sourceUrlTemplate.replaceAll("{siret}", siret).replaceAll("{siren}", siret.slice(0, 9));
}

const PROOF_PHRASE: Record<ProofStatus, string> = {
  official_source_verified: "verified against an official source",
  machine_consistent: "checked by the platform",
  merchant_declared: "declared by the merchant",
};

const day = (timestamp: string | null) => (timestamp ? timestamp.slice(0, 10) : "an unknown date");

/** One technical English sentence saying why the signal counts for what it counts. */
function explain(facts: {
  definition: SignalDefinition;
  record: Signal | undefined;
  status: EvidenceStatus;
  proofStatus: ProofStatus | null;
  points: number;
  counted: number;
  sector: string;
}): string {
  const { definition, record, status, proofStatus, points, counted, sector } = facts;
  const component = `the ${definition.component} component`;
  switch (status) {
    case "not_applicable":
      return `This signal applies only to the ${(definition.appliesTo ?? []).join(", ")} sectors and the merchant's sector is ${sector}, so it is not scored.`;
    case "unverified":
      return record
        ? `The signal was recorded on ${day(record.recordedAt)} but is not verified, so it adds no points to ${component} (rule: ${definition.rule}).`
        : `The registry holds no record of this signal for the merchant, so it adds no points to ${component} (rule: ${definition.rule}).`;
    case "failed": {
      const notice = record?.notice;
      const because = notice
        ? ` (notice ${notice.id} published on ${notice.publishedOn}: ${notice.label}${notice.court ? `, ${notice.court}` : ""})`
        : "";
      return `The last check, on ${day(record?.verifiedAt ?? record?.recordedAt ?? null)}, failed${because}, so the signal adds no points to ${component}.`;
    }
    case "expired":
      return `The verification expired on ${day(record?.expiresAt ?? null)}, so the signal adds no points to ${component} until it is checked again.`;
    case "verified": {
      const how = `${PROOF_PHRASE[proofStatus ?? proofStatusFor(definition.source)]} on ${day(record?.verifiedAt ?? record?.recordedAt ?? null)}`;
      if (points === 0)
        return `The signal was ${how}, but its observed value earns no points under the rule: ${definition.rule}.`;
      if (counted < points) {
        return `The signal was ${how}; its rule gives ${points} points but only ${counted} count because ${component} is capped at ${COMPONENT_MAX}.`;
      }
      return `The signal was ${how} and adds ${counted} points to ${component} (rule: ${definition.rule}).`;
    }
  }
}
