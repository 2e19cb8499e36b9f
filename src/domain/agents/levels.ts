/**
 * Certification levels, their permissions and hourly budgets (DESIGN.md, "Agents and limits").
 * A pending agent (levels 3-4 awaiting manual verification) holds level 2 until approved.
 */

export const CERTIFICATION_LEVELS = [1, 2, 3, 4] as const;
export type CertificationLevel = (typeof CERTIFICATION_LEVELS)[number];

export const LEVEL_NAMES: Record<CertificationLevel, string> = {
  1: "Reader",
  2: "Inquirer",
  3: "Commercial",
  4: "Transactional",
};

export const PERMISSIONS = ["registry:read", "leads:write", "leads:read", "orders:quote", "orders:write"] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const PERMISSIONS_BY_LEVEL: Record<CertificationLevel, readonly Permission[]> = {
  1: ["registry:read"],
  2: ["registry:read", "leads:write", "leads:read"],
  3: ["registry:read", "leads:write", "leads:read", "orders:quote"],
  4: ["registry:read", "leads:write", "leads:read", "orders:quote", "orders:write"],
};

/** Callers without a key: public reads and lead creation. */
export const ANONYMOUS_PERMISSIONS: readonly Permission[] = ["registry:read", "leads:write"];

/** Levels approved without a human: 1 and 2. Levels 3 and 4 wait in pending_verification. */
export const AUTO_APPROVED_MAX_LEVEL: CertificationLevel = 2;

export type AgentStatus = "active" | "pending_verification" | "suspended" | "revoked";

/** Hourly request budgets (config.rateLimitHourly). */
export interface HourlyLimits {
  anonymous: number;
  level1: number;
  level2: number;
  level3: number;
  level4: number;
}

export const DEFAULT_HOURLY_LIMITS: HourlyLimits = {
  anonymous: 600,
  level1: 2000,
  level2: 5000,
  level3: 20000,
  level4: 50000,
};

export function isCertificationLevel(value: number): value is CertificationLevel {
  return value === 1 || value === 2 || value === 3 || value === 4;
}

/** The level in force: a pending agent is held at level 2 whatever it asked for. */
export function effectiveLevel(agent: { status: AgentStatus; certificationLevel: number }): CertificationLevel {
  const level = isCertificationLevel(agent.certificationLevel) ? agent.certificationLevel : 1;
  return agent.status === "pending_verification" && level > AUTO_APPROVED_MAX_LEVEL ? AUTO_APPROVED_MAX_LEVEL : level;
}

export function permissionsFor(level: CertificationLevel): Permission[] {
  return [...PERMISSIONS_BY_LEVEL[level]];
}

export function hourlyLimitFor(limits: HourlyLimits, level: CertificationLevel | null): number {
  switch (level) {
    case null:
      return limits.anonymous;
    case 1:
      return limits.level1;
    case 2:
      return limits.level2;
    case 3:
      return limits.level3;
    case 4:
      return limits.level4;
  }
}

/** Status and granted level at registration: 1-2 active at once, 3-4 pending and held at level 2. */
export function initialGrant(requestedLevel: CertificationLevel): {
  status: "active" | "pending_verification";
  certificationLevel: CertificationLevel;
} {
  return requestedLevel <= AUTO_APPROVED_MAX_LEVEL
    ? { status: "active", certificationLevel: requestedLevel }
    : { status: "pending_verification", certificationLevel: AUTO_APPROVED_MAX_LEVEL };
}
