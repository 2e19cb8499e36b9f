import {
  COMPONENT_MAX,
  type SignalValue,
  signalApplies,
  signalDefinition,
  signalPosition,
  type TrustComponent,
  trustComponents,
} from "./signal-catalog.ts";
import { signalCountsAt, signalValueAt } from "./signal-expiry.ts";

export interface TrustContribution {
  signal: string;
  component: TrustComponent;
  /** Points the signal earned by its rule, before the component cap. */
  points: number;
  /** Points that counted after the cap of 25 per component. */
  counted: number;
}

export interface TrustBreakdown {
  experience: number;
  expertise: number;
  authority: number;
  trust: number;
  total: number;
}

export interface TrustResult {
  breakdown: TrustBreakdown;
  contributions: TrustContribution[];
}

export interface ScorableSignal {
  key: string;
  status: string;
  value: SignalValue;
  expiresAt?: string | null;
}

/**
 * Sums the points of a merchant's verified, unexpired, applicable signals per component, capped
 * at 25 each. Signals are taken in catalog order so the cap always drops the same points.
 */
export function computeTrust(signals: readonly ScorableSignal[], sector: string, now: Date): TrustResult {
  const totals: Record<TrustComponent, number> = { experience: 0, expertise: 0, authority: 0, trust: 0 };
  const contributions: TrustContribution[] = [];
  const nowIso = now.toISOString();
  const ordered = [...signals].sort((a, b) => signalPosition(a.key) - signalPosition(b.key));
  for (const signal of ordered) {
    const definition = signalDefinition(signal.key);
    if (!definition || !signalCountsAt(signal, nowIso) || !signalApplies(definition, sector)) continue;
    const points = Math.max(0, Math.round(definition.points(signalValueAt(signal, now))));
    const counted = Math.min(points, COMPONENT_MAX - totals[definition.component]);
    totals[definition.component] += counted;
    contributions.push({ signal: signal.key, component: definition.component, points, counted });
  }
  const breakdown: TrustBreakdown = {
    ...totals,
    total: trustComponents.reduce((sum, component) => sum + totals[component], 0),
  };
  return { breakdown, contributions };
}
