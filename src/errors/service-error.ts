import type { ErrorCode } from "./catalog.ts";

export interface ValidationIssue {
  path: string;
  message: string;
  /** Values the argument may take instead (an unknown place's closest names). */
  suggestions?: string[];
}

export interface ServiceErrorDetails {
  issues?: ValidationIssue[];
  blockedBecause?: string[];
  abId?: string;
  allow?: string[];
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
}

/**
 * A failure the domain can name. Transport-free: it carries a catalog code and details; the
 * HTTP status and recovery actions come from the catalog when it is rendered.
 */
export class ServiceError extends Error {
  override name = "ServiceError";
  readonly code: ErrorCode;
  readonly details: ServiceErrorDetails;

  constructor(code: ErrorCode, message?: string, details: ServiceErrorDetails = {}) {
    super(message ?? code);
    this.code = code;
    this.details = details;
  }
}

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}

/**
 * The ServiceError a failure is, or carries as its cause (a library may wrap what the store raised:
 * drizzle's query errors carry the pool's STORE_UNAVAILABLE as their cause); null when none.
 */
export function serviceErrorOf(failure: unknown): ServiceError | null {
  let current = failure;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof ServiceError) return current;
    current = current.cause;
  }
  return null;
}

export const validationError = (issues: ValidationIssue[], message?: string) =>
  new ServiceError("VALIDATION_ERROR", message ?? describeIssues(issues), { issues });

function describeIssues(issues: ValidationIssue[]): string {
  const first = issues.slice(0, 3).map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : "";
  return `Invalid request: ${first.join("; ")}${more}`;
}
