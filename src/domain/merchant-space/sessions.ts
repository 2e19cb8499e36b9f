import {
  createHash,
  createHmac,
  createSecretKey,
  type KeyObject,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from "node:crypto";
import type { SpacePerson, SpaceStore } from "./space-store.ts";

/**
 * Sessions of the merchant space: server-side rows (space-store.ts), a random token in the
 * cookie, the SHA-256 of the token in the store. A session ends after IDLE_MS without use, after
 * ABSOLUTE_MS whatever the use, at sign-out, when the same browser signs in again (rotation:
 * a new session each sign-in, the old one ended) and when a claim its person held is revoked.
 */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** A use moves the idle expiry at most once a minute: reading a page is not a write each time. */
const TOUCH_EVERY_MS = 60 * 1000;

/** What the space's rules need; built from the App by src/wiring.ts (`spaceDeps`). */
export interface SpaceDeps {
  store: SpaceStore;
  now: () => Date;
  /** The key of the CSRF tokens (DATA_DIR/secrets/pro-csrf.key, created on first use). */
  csrfSecret: () => Buffer;
  /** Wakes the outbox worker (a claim's notices). */
  notifyOutbox?: () => void;
}

export interface SpaceSession {
  sessionId: string;
  person: SpacePerson;
  /** The token every form of the session carries (bound to the session: HMAC of its id). */
  csrfToken: string;
  /** When the session ends unless used again (the earlier of the idle and absolute expiries). */
  expiresAt: string;
  /** ProConnect's ID token (sign-out's id_token_hint); null for the letter path. */
  idToken: string | null;
}

/** 32 random bytes, base64url: what the cookies carry. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The form a token is stored in: SHA-256, hex. A token of the wrong shape hashes to nothing stored. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function isTokenShaped(token: string | null | undefined): token is string {
  return typeof token === "string" && TOKEN.test(token);
}

const CSRF_CONTEXT = "abeille-pro-csrf/v1:";
const keys = new WeakMap<() => Buffer, KeyObject>();

/** The CSRF token of a session: base64url(HMAC-SHA256(secret, context + session id)). */
export function csrfTokenOf(deps: Pick<SpaceDeps, "csrfSecret">, sessionId: string): string {
  let key = keys.get(deps.csrfSecret);
  if (!key) {
    key = createSecretKey(deps.csrfSecret());
    keys.set(deps.csrfSecret, key);
  }
  return createHmac("sha256", key)
    .update(CSRF_CONTEXT + sessionId, "utf8")
    .digest("base64url");
}

/** Whether a form's token is its session's (constant-time); a missing or malformed one is not. */
export function isSessionCsrfToken(session: SpaceSession, formToken: string | null | undefined): boolean {
  return isExpectedToken(session.csrfToken, formToken);
}

function isExpectedToken(expected: string, formToken: string | null | undefined): boolean {
  if (typeof formToken !== "string" || !TOKEN.test(formToken)) return false;
  return timingSafeEqual(Buffer.from(formToken, "ascii"), Buffer.from(expected, "ascii"));
}

/**
 * Opens a session for a person who just signed in. `replacing` is the token of the session the
 * browser held until now, if any: it is ended in the same write (rotation), so an old cookie
 * opens nothing after a new sign-in.
 */
export async function openSession(
  deps: SpaceDeps,
  person: SpacePerson,
  options: { idToken?: string | null; replacing?: string | null } = {},
): Promise<{ token: string; session: SpaceSession }> {
  const now = deps.now();
  const token = newToken();
  const sessionId = randomUUID();
  const idle = new Date(now.getTime() + SESSION_IDLE_MS).toISOString();
  const absolute = new Date(now.getTime() + SESSION_ABSOLUTE_MS).toISOString();
  const at = now.toISOString();
  await deps.store.insertSession(
    {
      sessionId,
      tokenHash: tokenHash(token),
      person,
      idToken: options.idToken ?? null,
      createdAt: at,
      lastSeenAt: at,
      idleExpiresAt: idle,
      absoluteExpiresAt: absolute,
      endedAt: null,
    },
    isTokenShaped(options.replacing) ? tokenHash(options.replacing) : null,
  );
  return {
    token,
    session: {
      sessionId,
      person,
      csrfToken: csrfTokenOf(deps, sessionId),
      expiresAt: idle < absolute ? idle : absolute,
      idToken: options.idToken ?? null,
    },
  };
}

/**
 * The live session a token opens, or null (unknown, ended, idle or past its absolute expiry).
 * A use moves the idle expiry (at most once a minute, never past the absolute one).
 */
export async function readSession(deps: SpaceDeps, token: string | null | undefined): Promise<SpaceSession | null> {
  if (!isTokenShaped(token)) return null;
  const record = await deps.store.findSession(tokenHash(token));
  if (!record || record.endedAt !== null) return null;
  const now = deps.now();
  const at = now.toISOString();
  if (at >= record.idleExpiresAt || at >= record.absoluteExpiresAt) {
    await deps.store.endSession(record.sessionId, at, "expired");
    return null;
  }
  let idleExpiresAt = record.idleExpiresAt;
  if (now.getTime() - Date.parse(record.lastSeenAt) >= TOUCH_EVERY_MS) {
    idleExpiresAt = new Date(now.getTime() + SESSION_IDLE_MS).toISOString();
    await deps.store.touchSession(record.sessionId, at, idleExpiresAt);
  }
  return {
    sessionId: record.sessionId,
    person: record.person,
    csrfToken: csrfTokenOf(deps, record.sessionId),
    expiresAt: idleExpiresAt < record.absoluteExpiresAt ? idleExpiresAt : record.absoluteExpiresAt,
    idToken: record.idToken,
  };
}

/** What a sign-out found: no session for the cookie, a form not of the cookie's session, or the session it ended. */
export type SignOut =
  | { kind: "none" }
  | { kind: "refused" }
  | { kind: "ended"; via: SpacePerson["via"]; idToken: string | null };

/**
 * Signs out the session a cookie names, live or not: a session that expired (or was ended by a
 * newer sign-in or a revocation) still names the provider's session to end (its ID token, for
 * `id_token_hint`). The form must carry that session's CSRF token (it is derived from the session
 * id, so it stays checkable after expiry); a live session ends here.
 */
export async function signOut(
  deps: SpaceDeps,
  token: string | null | undefined,
  formToken: string | null | undefined,
): Promise<SignOut> {
  if (!isTokenShaped(token)) return { kind: "none" };
  const record = await deps.store.findSession(tokenHash(token));
  if (!record) return { kind: "none" };
  if (!isExpectedToken(csrfTokenOf(deps, record.sessionId), formToken)) return { kind: "refused" };
  if (record.endedAt === null) await deps.store.endSession(record.sessionId, deps.now().toISOString(), "sign_out");
  return { kind: "ended", via: record.person.via, idToken: record.idToken };
}
