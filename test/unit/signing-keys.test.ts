import { spawn } from "node:child_process";
import { createPrivateKey, createPublicKey, sign as nodeSign } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { inspect } from "node:util";
import { calculateJwkThumbprint, compactVerify, createLocalJWKSet } from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseDuration, runKeysCommand } from "../../jobs/keys.ts";
import { jwkThumbprint, publicJwkOf, secretKeyFromPkcs8Pem, spkiPem } from "../../src/signing/ed25519.ts";
import { renderJwks } from "../../src/signing/jwks-file.ts";
import { decodeCompactJws } from "../../src/signing/jws.ts";
import { createKeyStore, type KeyStore, type KeyStoreOptions } from "../../src/signing/key-store.ts";
import { KEY_RESERVATION_SECONDS } from "../../src/signing/policy.ts";

const HOUR = 3_600_000;
const T0 = new Date("2026-11-01T10:00:00.000Z");

let dataDir: string;
let clock: Date;
const now = () => clock;
const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

function store(options: KeyStoreOptions = {}): KeyStore {
  return createKeyStore({ dataDir }, { now, reloadIntervalMs: 0, ...options });
}

const keysDir = () => path.join(dataDir, "keys");
const readIndex = () =>
  JSON.parse(readFileSync(path.join(keysDir(), "index.json"), "utf8")) as {
    keys: { kid: string; not_after: string | null }[];
  };
const payload = (text = '{"hello":"world"}') => new TextEncoder().encode(text);

async function verifiesAgainst(keys: KeyStore, jws: string): Promise<boolean> {
  try {
    await compactVerify(jws, createLocalJWKSet(keys.jwks()), { algorithms: ["EdDSA"] });
    return true;
  } catch {
    return false;
  }
}

beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "abeille-keys-"));
  clock = T0;
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe("Ed25519 encodings", () => {
  it("computes the kid as the RFC 7638 thumbprint jose computes", async () => {
    const keys = store();
    const { jwk, kid } = keys.activeKey();
    expect(kid).toBe(await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, "sha256"));
    expect(jwkThumbprint(publicJwkOf(Buffer.from(jwk.x, "base64url")))).toBe(kid);
  });

  it("matches the RFC 8037 appendix A.3 thumbprint example", () => {
    expect(jwkThumbprint({ kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" })).toBe(
      "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k",
    );
  });

  it("serves a PEM public key node:crypto reads as the same key", () => {
    const { jwk, pem } = store().activeKey();
    const fromPem = createPublicKey(pem).export({ format: "jwk" });
    expect(fromPem).toMatchObject({ kty: "OKP", crv: "Ed25519", x: jwk.x });
    expect(spkiPem(Buffer.from(jwk.x, "base64url"))).toBe(pem);
  });
});

describe("key files", () => {
  it("creates one active key on first use, its private file mode 0600 in a 0700 directory", () => {
    const keys = store();
    const [only, ...others] = keys.list();
    expect(others).toEqual([]);
    expect(only?.state).toBe("active");
    expect(statSync(keysDir()).mode & 0o777).toBe(0o700);
    const privateFile = path.join(keysDir(), `${only?.kid}.private.pem`);
    expect(statSync(privateFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(keysDir()).sort()).toEqual([`${only?.kid}.private.pem`, "index.json"].sort());
  });

  it("writes a PKCS #8 private key that node:crypto signs with, and the key set verifies", async () => {
    const keys = store();
    const { kid } = keys.activeKey();
    const pem = readFileSync(path.join(keysDir(), `${kid}.private.pem`), "utf8");
    const privateKey = createPrivateKey(pem);
    const { signingInput } = decodeCompactJws(
      keys.signJws(payload(), { typ: "t", expiresAt: new Date(T0.getTime() + HOUR) }).jws,
    );
    const header = Buffer.from(JSON.stringify({ alg: "EdDSA", kid, typ: "t" })).toString("base64url");
    const input = `${header}.${Buffer.from(payload()).toString("base64url")}`;
    expect(new TextDecoder().decode(signingInput)).toBe(input);
    // Ed25519 is deterministic: node:crypto gives the very signature noble gave.
    const jws = `${input}.${nodeSign(null, Buffer.from(input), privateKey).toString("base64url")}`;
    expect(jws).toBe(keys.signJws(payload(), { typ: "t", expiresAt: new Date(T0.getTime() + HOUR) }).jws);
    expect(await verifiesAgainst(keys, jws)).toBe(true);
  });

  it("signs byte for byte alike with the noble and node:crypto backends", () => {
    const noble = store();
    const node = store({ backend: "node" });
    const options = { typ: "t", expiresAt: new Date(T0.getTime() + HOUR) };
    expect(node.signJws(payload(), options)).toEqual(noble.signJws(payload(), options));
  });

  it("keeps private parts out of the index, the key set, the public key and the store object", () => {
    const keys = store();
    const { kid } = keys.activeKey();
    keys.signJws(payload(), { typ: "t", expiresAt: new Date(T0.getTime() + HOUR) });
    const secretB64 = Buffer.from(
      secretKeyFromPkcs8Pem(readFileSync(path.join(keysDir(), `${kid}.private.pem`), "utf8")),
    ).toString("base64url");
    const index = readFileSync(path.join(keysDir(), "index.json"), "utf8");
    const published = JSON.stringify([keys.jwks(), keys.activeKey(), keys.list()]);
    for (const text of [index, published, inspect(keys, { depth: 10, showHidden: true }), JSON.stringify(keys)]) {
      expect(text).not.toContain(secretB64);
      expect(text).not.toContain("PRIVATE KEY");
      expect(text).not.toMatch(/"d"\s*:/);
    }
    for (const key of keys.jwks().keys)
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
  });

  it("resets a private key file made readable by others back to 0600 before signing", () => {
    const { kid } = store().activeKey();
    const file = path.join(keysDir(), `${kid}.private.pem`);
    chmodSync(file, 0o644);
    store().signJws(payload(), { typ: "t", expiresAt: new Date(T0.getTime() + HOUR) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("rotation", () => {
  it("publishes the next key at once but signs with it only after the delay", async () => {
    const keys = store();
    const first = keys.activeKey().kid;
    const next = keys.rotate({ activateAfterSeconds: 3600 });
    expect(next.state).toBe("pending");
    expect(keys.jwks().keys.map((key) => key.kid)).toEqual([first, next.kid]);
    expect(keys.signJws(payload(), { typ: "t", expiresAt: new Date(clock.getTime() + HOUR) }).kid).toBe(first);

    advance(HOUR);
    const signed = keys.signJws(payload(), { typ: "t", expiresAt: new Date(clock.getTime() + HOUR) });
    expect(signed.kid).toBe(next.kid);
    const states = Object.fromEntries(keys.list().map((key) => [key.kid, key.state]));
    expect(states).toEqual({ [first]: "retired", [next.kid]: "active" });
  });

  it("signs with the new key at once with a zero delay, and old manifests still verify until they expire", async () => {
    const keys = store();
    const old = keys.signJws(payload(), { typ: "t", expiresAt: new Date(clock.getTime() + 24 * HOUR) });
    const rotated = keys.rotate({ activateAfterSeconds: 0 });
    const fresh = keys.signJws(payload(), { typ: "t", expiresAt: new Date(clock.getTime() + HOUR) });
    expect(fresh.kid).toBe(rotated.kid);
    expect(fresh.kid).not.toBe(old.kid);
    expect(decodeCompactJws(fresh.jws).header.kid).toBe(rotated.kid);
    expect(await verifiesAgainst(keys, old.jws)).toBe(true);
    expect(await verifiesAgainst(keys, fresh.jws)).toBe(true);

    advance(24 * HOUR);
    // Still inside the reservation written before the old key signed.
    expect(keys.jwks().keys.map((key) => key.kid)).toContain(old.kid);
    advance(KEY_RESERVATION_SECONDS * 1000);
    expect(keys.jwks().keys.map((key) => key.kid)).toEqual([rotated.kid]);
    expect(await verifiesAgainst(keys, old.jws)).toBe(false);
    expect(keys.list().find((key) => key.kid === old.kid)).toMatchObject({ state: "retired", published: false });
  });

  it("drops a retired key that never signed from the key set at once", () => {
    const keys = store();
    const first = keys.activeKey().kid;
    keys.rotate({ activateAfterSeconds: 0 });
    expect(keys.jwks().keys.map((key) => key.kid)).not.toContain(first);
  });

  it("records before signing a not_after covering the signed expiry, rewriting the index at most once a reservation", () => {
    const keys = store();
    const expiresAt = new Date(clock.getTime() + 24 * HOUR);
    const { kid } = keys.signJws(payload(), { typ: "t", expiresAt });
    const recorded = readIndex().keys.find((key) => key.kid === kid)?.not_after;
    expect(Date.parse(recorded ?? "")).toBeGreaterThanOrEqual(expiresAt.getTime());
    const before = statSync(path.join(keysDir(), "index.json")).mtimeMs;
    const indexText = readFileSync(path.join(keysDir(), "index.json"), "utf8");
    for (let minute = 0; minute < 60; minute++) {
      advance(60_000);
      keys.signJws(payload(), { typ: "t", expiresAt: new Date(clock.getTime() + 24 * HOUR) });
    }
    expect(readFileSync(path.join(keysDir(), "index.json"), "utf8")).toBe(indexText);
    expect(statSync(path.join(keysDir(), "index.json")).mtimeMs).toBe(before);
    advance(2 * HOUR);
    const later = new Date(clock.getTime() + 24 * HOUR);
    keys.signJws(payload(), { typ: "t", expiresAt: later });
    expect(Date.parse(readIndex().keys.find((key) => key.kid === kid)?.not_after ?? "")).toBeGreaterThanOrEqual(
      later.getTime(),
    );
  });

  it("sees a rotation made by another process once the reload interval has passed", () => {
    let tick = 0;
    const server = store({ reloadIntervalMs: 1000, monotonicMs: () => tick });
    const first = server.activeKey().kid;
    const operator = store();
    const rotated = operator.rotate({ activateAfterSeconds: 0 });
    tick += 500;
    expect(server.activeKey().kid).toBe(first);
    tick += 600;
    expect(server.activeKey().kid).toBe(rotated.kid);
    expect(server.signJws(payload(), { typ: "t", expiresAt: new Date(clock.getTime() + HOUR) }).kid).toBe(rotated.kid);
  });

  it("keeps the previous key signing when its pending successor is retired", () => {
    const keys = store();
    const first = keys.activeKey().kid;
    const next = keys.rotate({ activateAfterSeconds: 3600 });
    keys.retire(next.kid);
    advance(2 * HOUR);
    expect(keys.activeKey().kid).toBe(first);
    expect(keys.jwks().keys.map((key) => key.kid)).toEqual([first]);
  });

  it("refuses to retire the only key that can sign", () => {
    const keys = store();
    const { kid } = keys.activeKey();
    expect(() => keys.retire(kid)).toThrow(/no key to sign/);
    expect(() => keys.retire("unknown")).toThrow(/no key has kid/);
    expect(keys.activeKey().kid).toBe(kid);
  });

  it("loses no key when several processes rotate at the same moment", async () => {
    store().activeKey();
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<number>((resolve, reject) => {
          const child = spawn(process.execPath, ["jobs/keys.ts", "rotate", "--activate-after", "1h"], {
            env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" },
            stdio: ["ignore", "ignore", "pipe"],
          });
          let stderr = "";
          child.stderr?.on("data", (chunk: Buffer) => {
            stderr += chunk.toString();
          });
          child.once("error", reject);
          child.once("exit", (code) => {
            if (code !== 0) process.stderr.write(stderr);
            resolve(code ?? -1);
          });
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
    const index = readIndex();
    expect(index.keys).toHaveLength(5);
    for (const key of index.keys) {
      expect(statSync(path.join(keysDir(), `${key.kid}.private.pem`)).mode & 0o777).toBe(0o600);
    }
  }, 60_000);
});

describe("npm run keys", () => {
  it("reads durations in seconds, with units, and zero", () => {
    expect(parseDuration("0")).toBe(0);
    expect(parseDuration("90")).toBe(90);
    expect(parseDuration("15m")).toBe(900);
    expect(parseDuration("1h")).toBe(3600);
    expect(parseDuration("2d")).toBe(172_800);
    expect(parseDuration("soon")).toBeNull();
    expect(parseDuration("-1h")).toBeNull();
  });

  it("lists, rotates and retires, refusing with exit code 1 and explaining usage with 2", () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (text: string) => out.push(text), err: (text: string) => err.push(text) };
    const run = (...args: string[]) => runKeysCommand(args, { dataDir }, io, { now });
    expect(run("list")).toBe(0);
    expect(out.join("")).toMatch(/active/);
    expect(run("rotate", "--activate-after", "30m")).toBe(0);
    expect(out.join("")).toMatch(/pending/);
    out.length = 0;
    expect(run("list", "--json")).toBe(0);
    const keys = JSON.parse(out.join("")) as { kid: string; state: string }[];
    const pending = keys.find((key) => key.state === "pending");
    const active = keys.find((key) => key.state === "active");
    expect(run("retire", active?.kid ?? "")).toBe(1);
    expect(err.join("")).toMatch(/rotate --activate-after 0/);
    expect(run("retire", pending?.kid ?? "")).toBe(0);
    expect(run("rotate", "--activate-after", "later")).toBe(2);
    expect(run("explode")).toBe(2);
  });

  it("takes a key id that starts with a dash (one in 64) as the key to retire, not as an option", () => {
    const err: string[] = [];
    const io = { out: () => undefined, err: (text: string) => err.push(text) };
    const run = (...args: string[]) => runKeysCommand(args, { dataDir }, io, { now });
    const dashed = `-${"a".repeat(42)}`;
    expect(run("retire", dashed)).toBe(1);
    expect(err.join("")).toMatch(/no key has kid/);
    expect(run("retire", "--", dashed)).toBe(1);
    expect(run("retire", "-x")).toBe(2);
  });

  it("rewrites the static key set in the publish folder so it lists the next key before it signs", () => {
    const publishDir = path.join(dataDir, "publish");
    mkdirSync(publishDir);
    const io = { out: () => undefined, err: () => undefined };
    expect(runKeysCommand(["rotate"], { dataDir }, io, { now })).toBe(0);
    const keys = store();
    const file = path.join(publishDir, ".well-known", "ab-public-keys.json");
    expect(readFileSync(file, "utf8")).toBe(renderJwks(keys.jwks()));
    expect(keys.jwks().keys).toHaveLength(2);
  });
});
