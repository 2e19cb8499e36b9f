/**
 * The secrets under DATA_DIR/secrets: HMAC keys of the tokens the service hands out and checks
 * later, maybe on another machine (docs/several-machines.md: the operator's secret store copies
 * them onto every machine; a PostgreSQL deployment checks their fingerprints at start).
 */
import path from "node:path";

export const SECRET_FILES = {
  /** Lead tracking tokens (the "code de suivi"). */
  leadTracking: "lead-tracking.key",
  /** The form tokens of the merchants' pages. */
  pageForm: "page-form.key",
  /** The links confirming a merchant's lead email. */
  leadEmail: "lead-email.key",
  /** The merchant space's CSRF tokens. */
  proCsrf: "pro-csrf.key",
  /** The keyed hashes of the letters' codes. */
  letterCode: "letter-code.key",
  /** The letter path's sign-in links. */
  signInLink: "pro-sign-in-link.key",
} as const;

export type SecretName = keyof typeof SECRET_FILES;

export const SECRETS_DIRNAME = "secrets";

export function secretFile(dataDir: string, name: SecretName): string {
  return path.join(dataDir, SECRETS_DIRNAME, SECRET_FILES[name]);
}
