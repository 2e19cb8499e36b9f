/**
 * The signing keys under `DATA_DIR/keys/`:
 *
 * - `index.json`: public metadata of every key (kid, x, created_at, activates_at, retired_at,
 *   superseded_by, not_after), replaced atomically (temp file, fsync, rename) under a lock file, so
 *   the server, the refresh job and the operator command can all change it without losing an update.
 * - `<kid>.private.pem`: the private key, PKCS #8, mode 0600, written once, never served, never
 *   logged, held in memory only inside this module's closure.
 *
 * Key states at a moment t: `pending` (published, signs from activates_at), `active` (the newest
 * activated, unretired key: the one that signs), `standby` (activated and unretired but superseded
 * by a newer key; only a hand-made index has one), `retired` (retired_at <= t: never signs again).
 * The key set publishes every unretired key and every retired key whose `not_after` is still ahead.
 *
 * A running process re-reads the index when its inode, size or mtime changed, checking at most once
 * a second, so `npm run keys -- rotate` takes effect in a running server without a restart.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign as nodeSign, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { logger } from "../logging.ts";
import { type Jwks, type KeyIndex, type KeyRecord, keyIndexSchema, type PublicJwk } from "../schemas/signing.ts";
import {
  base64url,
  generateSecretKey,
  jwkThumbprint,
  pkcs8Der,
  pkcs8Pem,
  publicJwkOf,
  publicKeyOf,
  secretKeyFromPkcs8Pem,
  signBytes,
  spkiPem,
} from "./ed25519.ts";
import { withFileLock } from "./file-lock.ts";
import { compactJws, JWS_ALG } from "./jws.ts";
import { KEY_INDEX_RELOAD_INTERVAL_MS, KEY_RESERVATION_SECONDS } from "./policy.ts";

export type KeyState = "pending" | "active" | "standby" | "retired";

export interface KeyInfo {
  kid: string;
  state: KeyState;
  /** Listed in the key set right now. */
  published: boolean;
  created_at: string;
  activates_at: string;
  retired_at: string | null;
  superseded_by: string | null;
  not_after: string | null;
}

export interface SignedJws {
  jws: string;
  kid: string;
  alg: typeof JWS_ALG;
}

export interface JwsSignOptions {
  /** The JOSE `typ` header. */
  typ: string;
  /** Expiry of what is signed: the key stays published until then at least. */
  expiresAt: Date;
  /** The signing moment, for choosing the active key (default: the store's clock). */
  at?: Date;
}

/** What manifest issuers need: sign a payload with the active key. */
export interface JwsSigner {
  signJws(payload: Uint8Array, options: JwsSignOptions): SignedJws;
}

export interface KeyStore extends JwsSigner {
  readonly dir: string;
  /** Every key with its state, newest first. Creates the first key when there is none. */
  list(): KeyInfo[];
  /** The RFC 7517 key set: public parts of every key that may have signed an unexpired manifest. */
  jwks(): Jwks;
  /** The key that signs now, as a JWK and as SPKI PEM. */
  activeKey(): { kid: string; jwk: PublicJwk; pem: string };
  /**
   * Creates the next key, published at once, signing after `activateAfterSeconds`; every older
   * unretired key is retired at that same moment (superseded), so exactly one key signs at a time.
   */
  rotate(options: { activateAfterSeconds: number }): KeyInfo;
  /** Stops a key signing now. Refused when no key would be left to sign. */
  retire(kid: string): KeyInfo;
}

export interface KeyStoreOptions {
  /** The clock key states are computed against (tests inject one). */
  now?: () => Date;
  /** Minimum interval between two looks at the index file (default 1000 ms; 0 in tests). */
  reloadIntervalMs?: number;
  /** Clock for the reload throttle (default performance.now). */
  monotonicMs?: () => number;
  /**
   * Which Ed25519 implementation signs: @noble/ed25519 (default, the design's choice) or node:crypto
   * (OpenSSL, about 8 times faster here; see bench/signing.ts). Both give byte-identical signatures.
   */
  backend?: "noble" | "node";
}

/** A refusal the operator can act on (unknown kid, retiring the last signing key, ...). */
export class KeyStoreError extends Error {
  override name = "KeyStoreError";
}

export const KEYS_DIRNAME = "keys";
const INDEX_FILE = "index.json";
const LOCK_FILE = "index.lock";
const privateKeyFile = (kid: string) => `${kid}.private.pem`;

export function keysDirOf(config: { dataDir: string }): string {
  return path.join(config.dataDir, KEYS_DIRNAME);
}

/**
 * The key store of a data directory. No file is touched until first use; the first use creates
 * the directory (0700) and a first key, active at once, when there is none.
 */
export function createKeyStore(config: { dataDir: string }, options: KeyStoreOptions = {}): KeyStore {
  const dir = keysDirOf(config);
  const indexFile = path.join(dir, INDEX_FILE);
  const lockFile = path.join(dir, LOCK_FILE);
  const now = options.now ?? (() => new Date());
  const reloadIntervalMs = options.reloadIntervalMs ?? KEY_INDEX_RELOAD_INTERVAL_MS;
  const monotonicMs = options.monotonicMs ?? (() => performance.now());

  let index: KeyIndex | null = null;
  let fingerprint: string | null = null;
  let lastCheck = Number.NEGATIVE_INFINITY;
  let directoryReady = false;
  const backend = options.backend ?? "noble";
  const secrets = new Map<string, Uint8Array>();
  const nodeKeys = new Map<string, KeyObject>();

  function ensureDirectory(): void {
    if (directoryReady) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      chmodSync(dir, 0o700);
    } catch {
      // not ours to change (a mounted secret volume, say): the files themselves are 0600
    }
    directoryReady = true;
  }

  function fingerprintOf(): string | null {
    try {
      const stat = statSync(indexFile, { bigint: true });
      return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  function readIndexFile(): KeyIndex | null {
    let text: string;
    try {
      text = readFileSync(indexFile, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    const parsed = keyIndexSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${indexFile} is not a valid key index: ${parsed.error.message}`);
    return parsed.data;
  }

  function writeIndexFile(next: KeyIndex): void {
    const temp = `${indexFile}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(temp, "wx", 0o644);
    try {
      writeSync(fd, `${JSON.stringify(next, null, 2)}\n`);
      fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      unlinkSync(temp);
      throw error;
    }
    closeSync(fd);
    renameSync(temp, indexFile);
    syncDirectory();
  }

  function syncDirectory(): void {
    try {
      const fd = openSync(dir, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // some file systems refuse fsync on directories; the rename itself is still atomic
    }
  }

  /** Loads the index when it changed on disk (at most once per interval unless forced). */
  function current(force = false): KeyIndex {
    const tick = monotonicMs();
    if (index !== null && !force && tick - lastCheck < reloadIntervalMs) return index;
    lastCheck = tick;
    ensureDirectory();
    const seen = fingerprintOf();
    if (index !== null && seen !== null && seen === fingerprint) return index;
    const loaded = seen === null ? null : readIndexFile();
    if (loaded !== null && loaded.keys.length > 0) {
      index = loaded;
      fingerprint = seen;
      return loaded;
    }
    // No key yet (first start, or the data directory was reset): create one, active at once.
    return mutate((fresh) => {
      if (fresh.keys.length > 0) return fresh;
      const at = now();
      const record = createKey(at, at);
      logger.info("signing key created", { kid: record.kid, activates_at: record.activates_at });
      return { version: 1, keys: [record] };
    });
  }

  /** Read-modify-write of the index under the lock, on the latest content on disk. */
  function mutate(change: (fresh: KeyIndex) => KeyIndex): KeyIndex {
    ensureDirectory();
    return withFileLock(lockFile, () => {
      const fresh = readIndexFile() ?? { version: 1 as const, keys: [] };
      const next = change(fresh);
      if (next !== fresh) writeIndexFile(next);
      index = next;
      fingerprint = fingerprintOf();
      lastCheck = monotonicMs();
      return next;
    });
  }

  function createKey(at: Date, activatesAt: Date): KeyRecord {
    const secret = generateSecretKey();
    const jwk = publicJwkOf(publicKeyOf(secret));
    const kid = jwkThumbprint(jwk);
    writePrivateKey(kid, secret);
    secrets.set(kid, secret);
    return {
      kid,
      kty: jwk.kty,
      crv: jwk.crv,
      x: jwk.x,
      created_at: at.toISOString(),
      activates_at: activatesAt.toISOString(),
      retired_at: null,
      superseded_by: null,
      not_after: null,
    };
  }

  function writePrivateKey(kid: string, secret: Uint8Array): void {
    const target = path.join(dir, privateKeyFile(kid));
    const temp = `${target}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(temp, "wx", 0o600);
    try {
      // The umask could only have narrowed the mode; set it exactly and check before any byte is written.
      fchmodSync(fd, 0o600);
      const mode = fstatSync(fd).mode & 0o777;
      if (mode !== 0o600) throw new Error(`private key file mode is ${mode.toString(8)}, expected 600`);
      writeSync(fd, pkcs8Pem(secret));
      fsyncSync(fd);
      closeSync(fd);
    } catch (error) {
      closeSync(fd);
      unlinkSync(temp);
      throw error;
    }
    renameSync(temp, target);
    syncDirectory();
  }

  function secretOf(record: KeyRecord): Uint8Array {
    const cached = secrets.get(record.kid);
    if (cached) return cached;
    const file = path.join(dir, privateKeyFile(record.kid));
    const stat = statSync(file);
    if ((stat.mode & 0o077) !== 0) {
      chmodSync(file, 0o600);
      logger.warn("private key file was readable by others; mode reset to 0600", { kid: record.kid });
    }
    const secret = secretKeyFromPkcs8Pem(readFileSync(file, "utf8"));
    // With node:crypto signing, node:crypto derives the public key too: @noble/ed25519's first
    // derivation builds its tables (about 0.3 s), which each refresh worker would pay for nothing.
    const derived =
      backend === "node"
        ? String(
            createPublicKey(
              createPrivateKey({ key: Buffer.from(pkcs8Der(secret)), format: "der", type: "pkcs8" }),
            ).export({ format: "jwk" }).x,
          )
        : base64url(publicKeyOf(secret));
    if (derived !== record.x) {
      throw new Error(`the private key file of ${record.kid} does not match its public key`);
    }
    secrets.set(record.kid, secret);
    return secret;
  }

  function signerOf(record: KeyRecord): (input: Uint8Array) => Uint8Array {
    const secret = secretOf(record);
    if (backend === "noble") return (input) => signBytes(input, secret);
    let keyObject = nodeKeys.get(record.kid);
    if (!keyObject) {
      keyObject = createPrivateKey({ key: Buffer.from(pkcs8Der(secret)), format: "der", type: "pkcs8" });
      nodeKeys.set(record.kid, keyObject);
    }
    const key = keyObject;
    return (input) => nodeSign(null, input, key);
  }

  function signJws(payload: Uint8Array, signOptions: JwsSignOptions): SignedJws {
    // Load first: on first use this creates the key, active from the moment it is made.
    const loaded = current();
    const at = signOptions.at ?? now();
    const expiresMs = signOptions.expiresAt.getTime();
    let record = requireActive(loaded, at);
    if (record.not_after === null || Date.parse(record.not_after) < expiresMs) {
      // Write-ahead: the key's not_after covers this expiry on disk before the signature exists.
      const reserved = mutate((fresh) => {
        const active = requireActive(fresh, at);
        if (active.not_after !== null && Date.parse(active.not_after) >= expiresMs) return fresh;
        const until = Math.max(expiresMs, at.getTime() + KEY_RESERVATION_SECONDS * 1000);
        return replace(fresh, { ...active, not_after: new Date(until).toISOString() });
      });
      record = requireActive(reserved, at);
    }
    const sign = signerOf(record);
    const jws = compactJws({ alg: JWS_ALG, kid: record.kid, typ: signOptions.typ }, payload, sign);
    return { jws, kid: record.kid, alg: JWS_ALG };
  }

  function infoOf(record: KeyRecord, states: Map<string, KeyState>, at: Date): KeyInfo {
    const state = states.get(record.kid) ?? "retired";
    return {
      kid: record.kid,
      state,
      published: isPublished(record, state, at),
      created_at: record.created_at,
      activates_at: record.activates_at,
      retired_at: record.retired_at,
      superseded_by: record.superseded_by,
      not_after: record.not_after,
    };
  }

  return {
    dir,
    signJws,
    list() {
      const { keys } = current(true);
      const at = now();
      const states = keyStates(keys, at);
      return newestFirst(keys).map((record) => infoOf(record, states, at));
    },
    jwks() {
      const { keys } = current();
      const at = now();
      const states = keyStates(keys, at);
      const rank: Record<KeyState, number> = { active: 0, pending: 1, standby: 2, retired: 3 };
      const published = newestFirst(keys)
        .map((record) => ({ record, state: states.get(record.kid) ?? "retired" }))
        .filter(({ record, state }) => isPublished(record, state, at))
        .sort((a, b) => rank[a.state] - rank[b.state]);
      return { keys: published.map(({ record }) => publicJwk(record)) };
    },
    activeKey() {
      const record = requireActive(current(), now());
      return { kid: record.kid, jwk: publicJwk(record), pem: spkiPem(Buffer.from(record.x, "base64url")) };
    },
    rotate({ activateAfterSeconds }) {
      if (!Number.isFinite(activateAfterSeconds) || activateAfterSeconds < 0) {
        throw new KeyStoreError("the activation delay must be a non-negative number of seconds");
      }
      current(true);
      let created: KeyRecord | undefined;
      const next = mutate((fresh) => {
        const at = now();
        const hasActive = activeRecord(fresh.keys, at) !== undefined;
        // With no key signing now, a delay would only leave manifests unsigned: activate at once.
        const activatesAt = hasActive ? new Date(at.getTime() + activateAfterSeconds * 1000) : at;
        const record = createKey(at, activatesAt);
        created = record;
        const activatesIso = record.activates_at;
        const keys = fresh.keys.map((key) => {
          const retiredBy = key.retired_at === null ? Number.POSITIVE_INFINITY : Date.parse(key.retired_at);
          if (retiredBy <= activatesAt.getTime()) return key;
          return { ...key, retired_at: activatesIso, superseded_by: record.kid };
        });
        return { version: 1, keys: [...keys, record] };
      });
      if (!created) throw new Error("rotation created no key");
      const kid = created.kid;
      logger.info("signing key rotated", { kid, activates_at: created.activates_at });
      const at = now();
      const record = next.keys.find((key) => key.kid === kid) ?? created;
      return infoOf(record, keyStates(next.keys, at), at);
    },
    retire(kid) {
      current(true);
      const next = mutate((fresh) => {
        const at = now();
        const atIso = at.toISOString();
        const states = keyStates(fresh.keys, at);
        const target = fresh.keys.find((key) => key.kid === kid);
        if (!target) throw new KeyStoreError(`no key has kid ${kid}`);
        if (states.get(kid) === "retired") {
          throw new KeyStoreError(`key ${kid} is already retired (since ${target.retired_at})`);
        }
        const wasPending = states.get(kid) === "pending";
        const keys = fresh.keys.map((key) => {
          if (key.kid === kid) return { ...key, retired_at: atIso, superseded_by: null };
          // A successor retired before it ever signed: the keys it was to supersede keep signing.
          if (
            wasPending &&
            key.superseded_by === kid &&
            key.retired_at !== null &&
            Date.parse(key.retired_at) > at.getTime()
          ) {
            return { ...key, retired_at: null, superseded_by: null };
          }
          return key;
        });
        if (!activeRecord(keys, at)) {
          throw new KeyStoreError(
            `retiring ${kid} would leave no key to sign manifests; run \`npm run keys -- rotate --activate-after 0\` instead (it retires the current key as the new one takes over)`,
          );
        }
        return { version: 1, keys };
      });
      logger.info("signing key retired", { kid });
      const at = now();
      const record = next.keys.find((key) => key.kid === kid);
      if (!record) throw new Error(`key ${kid} vanished from the index`);
      return infoOf(record, keyStates(next.keys, at), at);
    },
  };
}

function replace(indexValue: KeyIndex, record: KeyRecord): KeyIndex {
  return { ...indexValue, keys: indexValue.keys.map((key) => (key.kid === record.kid ? record : key)) };
}

function publicJwk(record: KeyRecord): PublicJwk {
  return { kty: "OKP", crv: "Ed25519", x: record.x, kid: record.kid, use: "sig", alg: "EdDSA" };
}

function newestFirst(keys: readonly KeyRecord[]): KeyRecord[] {
  return [...keys].sort(
    (a, b) =>
      Date.parse(b.activates_at) - Date.parse(a.activates_at) || Date.parse(b.created_at) - Date.parse(a.created_at),
  );
}

function isRetired(record: KeyRecord, at: Date): boolean {
  return record.retired_at !== null && Date.parse(record.retired_at) <= at.getTime();
}

/** The newest activated, unretired key at `at`. */
export function activeRecord(keys: readonly KeyRecord[], at: Date): KeyRecord | undefined {
  return newestFirst(keys).find((key) => !isRetired(key, at) && Date.parse(key.activates_at) <= at.getTime());
}

function requireActive(indexValue: KeyIndex, at: Date): KeyRecord {
  const record = activeRecord(indexValue.keys, at);
  if (!record) throw new Error(`no signing key is active at ${at.toISOString()}; see \`npm run keys -- list\``);
  return record;
}

export function keyStates(keys: readonly KeyRecord[], at: Date): Map<string, KeyState> {
  const active = activeRecord(keys, at);
  const states = new Map<string, KeyState>();
  for (const key of keys) {
    if (isRetired(key, at)) states.set(key.kid, "retired");
    else if (Date.parse(key.activates_at) > at.getTime()) states.set(key.kid, "pending");
    else states.set(key.kid, key.kid === active?.kid ? "active" : "standby");
  }
  return states;
}

function isPublished(record: KeyRecord, state: KeyState, at: Date): boolean {
  if (state !== "retired") return true;
  return record.not_after !== null && Date.parse(record.not_after) > at.getTime();
}
