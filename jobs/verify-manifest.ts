/**
 * Checks a verification manifest with a standard JOSE library (jose), so a merchant or an agent
 * can trust the check without trusting the registry's own code.
 *
 *   npm run verify-manifest -- <url-or-file> [--jwks <url-or-file>] [--json]
 *
 * The input is the manifest route's URL (or its saved answer), a `{ jws }` object or a bare compact
 * JWS. The key set defaults to `/.well-known/ab-public-keys.json` on the input URL's origin; a file
 * needs `--jwks` (the manifest's own `iss` is not trusted to say where its keys are).
 *
 * Valid means: the EdDSA signature verifies against a key of the set with the manifest's `kid`,
 * the header `typ` is `abeille-manifest+jws`, the manifest has not expired, and, when the input is
 * an envelope, its `data.manifest` and `data.kid` are exactly what was signed.
 *
 * Exit status:
 *   0  valid
 *   1  invalid: the reason on stdout
 *   2  the check could not run: a wrong option or argument, an input or key set missing or unreadable (one line)
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { compactVerify, createLocalJWKSet, type JSONWebKeySet, errors as joseErrors } from "jose";
import { unreadableFile } from "../src/import/open-text.ts";
import { CommandError, EXIT_DONE, EXIT_FAILED, EXIT_USAGE, runCommand, UsageError } from "./cli.ts";

const MANIFEST_TYP = "abeille-manifest+jws";
const CLOCK_SKEW_SECONDS = 60;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export interface Verdict {
  valid: boolean;
  reason: string | null;
  kid: string | null;
  ab_id: string | null;
  kind: string | null;
  issued_at: string | null;
  expires_at: string | null;
  iss: string | null;
  jwks: string;
}

/** An input or key set that cannot be read or is not what it should be: the check cannot run (exit 2). */
class CannotCheck extends CommandError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

interface LoadedInput {
  jws: string;
  /** `data.manifest` and `data.kid` when the input was an envelope or `{ manifest, jws, kid }`. */
  claimedManifest: unknown;
  claimedKid: unknown;
}

const isUrl = (text: string) => /^https?:\/\//i.test(text);

async function readSource(source: string): Promise<string> {
  if (isUrl(source)) {
    let response: Response;
    try {
      response = await fetch(source, { headers: { accept: "application/json, application/jwk-set+json" } });
    } catch (error) {
      const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
      throw new CannotCheck(`${source}: cannot be fetched (${cause?.code ?? cause?.message ?? String(error)})`);
    }
    if (!response.ok) throw new CannotCheck(`${source} answered HTTP ${response.status}`);
    return await response.text();
  }
  try {
    return await readFile(source, "utf8");
  } catch (error) {
    throw new CannotCheck(`${source}: ${unreadableFile(error) ?? (error as Error).message}`);
  }
}

function parseInput(text: string): LoadedInput {
  const trimmed = text.trim();
  if (COMPACT_JWS.test(trimmed)) return { jws: trimmed, claimedManifest: undefined, claimedKid: undefined };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw new CannotCheck("the input is neither a compact JWS nor JSON");
  }
  const record = asRecord(parsed);
  const holder = asRecord(record?.data) ?? record;
  if (holder && typeof holder.jws === "string" && COMPACT_JWS.test(holder.jws)) {
    return { jws: holder.jws, claimedManifest: holder.manifest, claimedKid: holder.kid };
  }
  throw new CannotCheck("no compact JWS found (expected a bare JWS, { jws } or an envelope with data.jws)");
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

const text = (value: unknown) => (typeof value === "string" ? value : null);

export async function verifyManifest(options: { input: string; jwks?: string; now?: Date }): Promise<Verdict> {
  const now = options.now ?? new Date();
  const jwksSource =
    options.jwks ??
    (isUrl(options.input)
      ? new URL("/.well-known/ab-public-keys.json", options.input).toString()
      : (() => {
          throw new UsageError("a file input needs --jwks <url-or-file>: the key set to check it against");
        })());
  const loaded = parseInput(await readSource(options.input));
  let keySet: JSONWebKeySet;
  try {
    keySet = JSON.parse(await readSource(jwksSource)) as JSONWebKeySet;
    if (!Array.isArray(keySet.keys)) throw new Error("no keys array");
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CannotCheck(`${jwksSource} is not a JSON key set`);
  }

  const verdict: Verdict = {
    valid: false,
    reason: null,
    kid: null,
    ab_id: null,
    kind: null,
    issued_at: null,
    expires_at: null,
    iss: null,
    jwks: jwksSource,
  };
  let payloadBytes: Uint8Array;
  try {
    const verified = await compactVerify(loaded.jws, createLocalJWKSet(keySet), { algorithms: ["EdDSA"] });
    payloadBytes = verified.payload;
    verdict.kid = verified.protectedHeader.kid ?? null;
    if (verified.protectedHeader.typ !== MANIFEST_TYP) {
      return { ...verdict, reason: `header typ is ${String(verified.protectedHeader.typ)}, not ${MANIFEST_TYP}` };
    }
  } catch (error) {
    return { ...verdict, reason: describeJoseError(error) };
  }

  let manifest: Record<string, unknown> | null;
  try {
    manifest = asRecord(JSON.parse(new TextDecoder().decode(payloadBytes)));
  } catch {
    manifest = null;
  }
  if (!manifest) return { ...verdict, reason: "the signed payload is not a JSON object" };
  Object.assign(verdict, {
    ab_id: text(manifest.ab_id),
    kind: text(manifest.kind),
    issued_at: text(manifest.issued_at),
    expires_at: text(manifest.expires_at),
    iss: text(manifest.iss),
  });

  const expires = Date.parse(verdict.expires_at ?? "");
  const issued = Date.parse(verdict.issued_at ?? "");
  if (Number.isNaN(expires) || Number.isNaN(issued)) {
    return { ...verdict, reason: "the manifest lacks a valid issued_at or expires_at" };
  }
  if (expires <= now.getTime()) return { ...verdict, reason: `the manifest expired at ${verdict.expires_at}` };
  if (issued > now.getTime() + CLOCK_SKEW_SECONDS * 1000) {
    return { ...verdict, reason: `the manifest claims to be issued in the future (${verdict.issued_at})` };
  }
  if (loaded.claimedManifest !== undefined && !isDeepStrictEqual(loaded.claimedManifest, manifest)) {
    return { ...verdict, reason: "data.manifest differs from the signed payload" };
  }
  if (loaded.claimedKid !== undefined && loaded.claimedKid !== verdict.kid) {
    return { ...verdict, reason: "data.kid differs from the kid in the signed header" };
  }
  return { ...verdict, valid: true };
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "the signature does not verify";
  if (error instanceof joseErrors.JWKSNoMatchingKey) return "no key in the key set matches the manifest's kid";
  if (error instanceof joseErrors.JOSEError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

function report(verdict: Verdict): string {
  const lines = [
    verdict.valid ? "VALID" : `INVALID: ${verdict.reason}`,
    `  kid:        ${verdict.kid ?? "-"}`,
    `  ab_id:      ${verdict.ab_id ?? "-"}`,
    `  kind:       ${verdict.kind ?? "-"}`,
    `  issued_at:  ${verdict.issued_at ?? "-"}`,
    `  expires_at: ${verdict.expires_at ?? "-"}`,
    `  iss:        ${verdict.iss ?? "-"}`,
    `  key set:    ${verdict.jwks}`,
  ];
  return `${lines.join("\n")}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runCommand(
    {
      name: "verify-manifest",
      usage: ["npm run verify-manifest -- <url-or-file> [--jwks <url-or-file>] [--json]"],
      notes: [
        "The input is the manifest route's URL (or its saved answer), a { jws } object or a bare compact JWS;",
        "the key set defaults to /.well-known/ab-public-keys.json on the input URL's origin (a file needs --jwks).",
      ],
      options: { jwks: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: true,
      exitStatuses: [
        [EXIT_DONE, "valid"],
        [EXIT_FAILED, "invalid: the reason on stdout"],
        [
          EXIT_USAGE,
          "the check could not run: a wrong option or argument, an input or key set missing or unreadable (one line)",
        ],
      ],
    },
    async ({ values, positionals }) => {
      const [input, ...extra] = positionals;
      if (!input) throw new UsageError("which manifest? give its URL or a file");
      if (extra.length > 0) throw new UsageError(`one manifest at a time, got ${positionals.length}`);
      const verdict = await verifyManifest({ input, ...(values.jwks ? { jwks: values.jwks } : {}) });
      process.stdout.write(values.json ? `${JSON.stringify(verdict, null, 2)}\n` : report(verdict));
      if (!verdict.valid) process.exitCode = EXIT_FAILED;
    },
  );
}
