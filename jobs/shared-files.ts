/**
 * The files every machine of a PostgreSQL deployment must hold alike (docs/several-machines.md,
 * "Secrets and signing keys reach every machine by copy"): the HMAC secrets under DATA_DIR/secrets
 * (a tracking token made on one machine is checked on another) and the signing keys under
 * DATA_DIR/keys (every machine publishes the same key set). The operator's secret store copies
 * them; the first machine to start records their SHA-256 in the database (creating the files when
 * the deployment has none yet), and a machine whose copy is missing or different refuses to start,
 * naming the file to copy.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Config } from "../src/config/config.ts";
import { createKeyStore, keysDirOf } from "../src/signing/key-store.ts";
import { loadOrCreateSecret } from "../src/store/lead-repository.ts";
import type { RecordedFingerprint, recordDeploymentFiles } from "../src/store/postgres/deployment-files.ts";
import { SECRET_FILES, type SecretName, secretFile } from "../src/store/secret-files.ts";

interface SharedFile {
  /** The name the deployment records it under. */
  name: string;
  /** Where it is on this machine, as the operator copies it. */
  where: string;
  /** Its fingerprint here, or null when this machine has none. */
  fingerprint(): string | null;
  /** Makes it (the deployment's first machine). */
  create(): void;
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** The signing keys' files (the index and each private key; not the lock), as one fingerprint. */
function keysFingerprint(dir: string): string | null {
  if (!existsSync(path.join(dir, "index.json"))) return null;
  const files = readdirSync(dir)
    .filter((name) => name === "index.json" || name.endsWith(".private.pem"))
    .sort();
  return sha256(files.map((name) => `${name}:${sha256(readFileSync(path.join(dir, name)))}`).join("\n"));
}

export function sharedFilesOf(config: Config): SharedFile[] {
  const secrets = (Object.keys(SECRET_FILES) as SecretName[]).map((name): SharedFile => {
    const file = secretFile(config.dataDir, name);
    return {
      name: `secrets/${SECRET_FILES[name]}`,
      where: file,
      fingerprint: () => (existsSync(file) ? sha256(readFileSync(file)) : null),
      create: () => void loadOrCreateSecret(file),
    };
  });
  const keysDir = keysDirOf(config);
  return [
    ...secrets,
    {
      name: "keys",
      where: `${keysDir}${path.sep}`,
      fingerprint: () => keysFingerprint(keysDir),
      // The key store makes the first key when it has none.
      create: () => void createKeyStore(config).list(),
    },
  ];
}

export class SharedFilesError extends Error {
  override name = "SharedFilesError";
}

/** What the store records (src/store/postgres/deployment-files.ts recordDeploymentFiles, on a pool). */
export type DeploymentFileRecorder = (
  ...args: Parameters<typeof recordDeploymentFiles> extends [unknown, ...infer Rest] ? Rest : never
) => ReturnType<typeof recordDeploymentFiles>;

/** Records or checks this machine's copies; throws SharedFilesError naming every file to copy. */
export async function checkSharedFiles(
  record: DeploymentFileRecorder,
  config: Config,
  now = new Date(),
): Promise<void> {
  const files = sharedFilesOf(config);
  const recorded = await record(
    files.map((file) => file.name),
    (known) =>
      files
        .filter((file) => !known.has(file.name))
        .map((file) => {
          if (file.fingerprint() === null) file.create();
          return { name: file.name, sha256: file.fingerprint() ?? "" };
        }),
    { host: os.hostname(), at: now.toISOString() },
  );
  const problems = files.flatMap((file) => {
    const deployment = recorded.get(file.name) as RecordedFingerprint;
    const here = file.fingerprint();
    if (here === deployment.sha256) return [];
    const source = `the deployment's was recorded by ${deployment.recordedBy} at ${deployment.recordedAt}`;
    return [
      here === null
        ? `${file.where} is missing: copy it from a machine of the deployment (${source})`
        : `${file.where} differs from the deployment's: copy it from a machine of the deployment (${source})`,
    ];
  });
  if (problems.length > 0) {
    throw new SharedFilesError(
      `this machine's secrets or signing keys are not the deployment's (docs/deployment.md, "Adding a machine"):\n  ${problems.join("\n  ")}`,
    );
  }
}

/**
 * After `npm run keys -- rotate|retire` on a PostgreSQL deployment: the keys of this machine become
 * the deployment's (the operator then copies DATA_DIR/keys to the other machines, which a restart
 * checks).
 */
export async function recordSigningKeys(
  config: Config,
  replace: (entries: { name: string; sha256: string }[], by: { host: string; at: string }) => Promise<void>,
): Promise<void> {
  const keys = sharedFilesOf(config).find((file) => file.name === "keys");
  const sha = keys?.fingerprint();
  if (!keys || !sha) return;
  await replace([{ name: keys.name, sha256: sha }], { host: os.hostname(), at: new Date().toISOString() });
}
