/**
 * The files every machine of a deployment must hold alike (docs/several-machines.md, "Secrets and
 * signing keys reach every machine by copy"): the HMAC secrets under DATA_DIR/secrets (a tracking
 * token made on one machine is checked on another, a letter's code printed by a command is checked
 * by every server) and the signing keys under DATA_DIR/keys (every machine publishes the same key
 * set). The operator's secret store copies them. Each is made once, by the deployment's first
 * server at its start or its first command that reads it, and its SHA-256 recorded in the store
 * (src/store/deployment-files.ts, on either engine); from then on nothing makes one again: a server
 * whose copy is missing or different refuses to start, and a command refuses to run (exit 2),
 * naming the file to copy, instead of making a key of its own whose tokens and codes every other
 * machine would read as wrong.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Config } from "../src/config/config.ts";
import { type KeyIndex, keyIndexSchema } from "../src/schemas/signing.ts";
import { createKeyStore, keysDirOf } from "../src/signing/key-store.ts";
import type { DeploymentFileStore } from "../src/store/deployment-files.ts";
import { loadOrCreateSecret } from "../src/store/lead-repository.ts";
import { SECRET_FILES, type SecretName, secretFile } from "../src/store/secret-files.ts";
import { CommandError, EXIT_USAGE } from "./cli.ts";

/** A file a machine holds alike with the others: one of the secrets, or the signing keys. */
export type SharedFileName = SecretName | "keys";

interface SharedFile {
  id: SharedFileName;
  /** The name the deployment records it under. */
  name: string;
  /** Where it is on this machine, as the operator copies it. */
  where: string;
  /** Its fingerprint here, or null when this machine has none. */
  fingerprint(): string | null;
  /** Makes it (the deployment's first server or command). */
  create(): void;
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/**
 * The signing keys as one fingerprint: each private key file, and what the index says of each key
 * that only the operator changes (its public half, creation, activation, retirement). Not the
 * index's bytes: the key store itself writes `not_after` there before each signature that expires
 * later (src/signing/key-store.ts), so a machine that signed anything would no longer match.
 */
function keysFingerprint(dir: string): string | null {
  const indexFile = path.join(dir, "index.json");
  if (!existsSync(indexFile)) return null;
  const text = readFileSync(indexFile, "utf8");
  let index: KeyIndex | null = null;
  try {
    index = keyIndexSchema.parse(JSON.parse(text));
  } catch {
    // A hand-edited index: its bytes, which match no deployment's, and the key store says why.
  }
  const keys = index
    ? index.keys
        .map((key) => [key.kid, key.x, key.created_at, key.activates_at, key.retired_at, key.superseded_by])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])))
    : text;
  const privateKeys = readdirSync(dir)
    .filter((name) => name.endsWith(".private.pem"))
    .sort()
    .map((name) => `${name}:${sha256(readFileSync(path.join(dir, name)))}`);
  return sha256(JSON.stringify({ keys, privateKeys }));
}

/** Every shared file, in SECRET_FILES' order then the keys; or only those named. */
export function sharedFilesOf(config: Pick<Config, "dataDir">, only?: readonly SharedFileName[]): SharedFile[] {
  const secrets = (Object.keys(SECRET_FILES) as SecretName[]).map((id): SharedFile => {
    const file = secretFile(config.dataDir, id);
    return {
      id,
      name: `secrets/${SECRET_FILES[id]}`,
      where: file,
      fingerprint: () => (existsSync(file) ? sha256(readFileSync(file)) : null),
      create: () => void loadOrCreateSecret(file),
    };
  });
  const keysDir = keysDirOf(config);
  const all: SharedFile[] = [
    ...secrets,
    {
      id: "keys",
      // Not "keys": the fingerprints recorded under that name (before issue 36) counted not_after.
      name: "signing-keys",
      where: `${keysDir}${path.sep}`,
      fingerprint: () => keysFingerprint(keysDir),
      // The key store makes the first key when it has none.
      create: () => void createKeyStore(config).list(),
    },
  ];
  return only ? all.filter((file) => only.includes(file.id)) : all;
}

export class SharedFilesError extends Error {
  override name = "SharedFilesError";
  /** One line per file to copy. */
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      `this machine's secrets or signing keys are not the deployment's (docs/deployment.md, "Adding a machine"):\n  ${problems.join("\n  ")}`,
    );
    this.problems = problems;
  }
}

/**
 * Under the store's lock of the fingerprints: checks this machine's copies of `files` against the
 * deployment's, then makes (when this machine has none) and records those the deployment has no
 * fingerprint of, then runs `changing` if given (a key rotation, say), whose files' new
 * fingerprints become the deployment's when it answers true. A copy missing or different throws
 * SharedFilesError naming every file to copy, before anything is made or recorded.
 */
async function recordOrCheck(
  store: DeploymentFileStore,
  files: readonly SharedFile[],
  options: { now?: Date; changing?: () => boolean },
): Promise<void> {
  await store.record(
    files.map((file) => file.name),
    (known) => {
      const problems = files.flatMap((file) => {
        const deployment = known.get(file.name);
        const here = file.fingerprint();
        if (!deployment || here === deployment.sha256) return [];
        const source = `the deployment's was recorded by ${deployment.recordedBy} at ${deployment.recordedAt}`;
        const copy = "copy it from the deployment's secret store or from another machine of the deployment";
        return [
          here === null
            ? `${file.where} is missing: ${copy} (${source})`
            : `${file.where} differs from the deployment's: ${copy} (${source})`,
        ];
      });
      if (problems.length > 0) throw new SharedFilesError(problems);
      const fresh = files.filter((file) => !known.has(file.name));
      for (const file of fresh) if (file.fingerprint() === null) file.create();
      const changed = options.changing?.() ?? false;
      return (changed ? files : fresh).map((file) => ({ name: file.name, sha256: file.fingerprint() ?? "" }));
    },
    { host: os.hostname(), at: (options.now ?? new Date()).toISOString() },
  );
}

/** The server's start: every shared file checked, or made and recorded on a new deployment. */
export function checkSharedFiles(
  store: DeploymentFileStore,
  config: Pick<Config, "dataDir">,
  now = new Date(),
): Promise<void> {
  return recordOrCheck(store, sharedFilesOf(config), { now });
}

/**
 * Before an operator command reads these files: they are the deployment's, or were made and
 * recorded now (the deployment's first use of them). Otherwise the command stops with exit status
 * 2 and one line naming each file to copy, having made and written nothing. `changing` is work
 * that changes the files (`npm run keys -- rotate`), run under the same lock once they are the
 * deployment's: when it answers true, the files as it left them become the deployment's (the
 * operator then copies them to the other machines, which a restart checks).
 */
export async function requireSharedFiles(
  store: DeploymentFileStore,
  config: Pick<Config, "dataDir">,
  names: readonly SharedFileName[],
  options: { now?: Date; changing?: () => boolean } = {},
): Promise<void> {
  try {
    await recordOrCheck(store, sharedFilesOf(config, names), options);
  } catch (error) {
    if (!(error instanceof SharedFilesError)) throw error;
    throw new CommandError(`${error.problems.join("; ")}; nothing was done`, EXIT_USAGE);
  }
}
