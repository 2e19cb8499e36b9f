/**
 * The files every machine of a deployment must hold alike (jobs/shared-files.ts), recorded in the
 * store on both engines (src/store/deployment-files.ts, src/store/postgres/deployment-files.ts):
 * the first server makes and records them; a second machine with none, or with a different one, is
 * refused with the files to copy named and nothing made; once the operator copied them, it starts.
 * A command that reads one (requireSharedFiles) makes and records it on a new deployment, and
 * refuses in one line, exit status 2, on a machine without the deployment's copy or with another.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CommandError } from "../../jobs/cli.ts";
import { executeKeysCommand } from "../../jobs/keys.ts";
import { checkSharedFiles, requireSharedFiles, SharedFilesError } from "../../jobs/shared-files.ts";
import { loadConfig } from "../../src/config/config.ts";
import { createKeyStore } from "../../src/signing/key-store.ts";
import { createDeploymentFileStore, type DeploymentFileStore } from "../../src/store/deployment-files.ts";
import { type OpenedStore, storeEngines } from "../helpers/store-engines.ts";

const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-shared-files-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let machines = 0;
/** A machine of its own: a DATA_DIR nothing was copied into. */
const machine = () => loadConfig({ DATA_DIR: path.join(scratch, `machine-${++machines}`) });
const AT = new Date("2026-11-27T02:00:00.000Z");
const RECORDED = `the deployment's was recorded by ${os.hostname()} at 2026-11-27T02:00:00.000Z`;
const COPY = "copy it from the deployment's secret store or from another machine of the deployment";

function fingerprintsOf(store: OpenedStore): DeploymentFileStore {
  return createDeploymentFileStore(store.storeDb);
}

async function refusal(work: Promise<unknown>): Promise<Error> {
  const error = await work.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

const secretsOf = (config: ReturnType<typeof machine>) => path.join(config.dataDir, "secrets");
const copySecrets = (from: ReturnType<typeof machine>, to: ReturnType<typeof machine>) =>
  cpSync(secretsOf(from), secretsOf(to), { recursive: true });
const copyKeys = (from: ReturnType<typeof machine>, to: ReturnType<typeof machine>) =>
  cpSync(path.join(from.dataDir, "keys"), path.join(to.dataDir, "keys"), { recursive: true });

describe.each(storeEngines())("the files every machine holds alike, on $name", (engine) => {
  it("are made and recorded by the first server, refused to a machine that lacks or changed them (nothing made), accepted once copied", async () => {
    const opened = await engine.open();
    const store = fingerprintsOf(opened);
    const first = machine();
    await checkSharedFiles(store, first, AT);
    expect(readdirSync(secretsOf(first)).sort()).toEqual([
      "lead-email.key",
      "lead-tracking.key",
      "letter-code.key",
      "page-form.key",
      "pro-csrf.key",
      "pro-sign-in-link.key",
    ]);
    const recorded = await opened.rows<{ name: string; recorded_by: string }>(
      "SELECT name, recorded_by FROM deployment_files ORDER BY name",
    );
    expect(recorded).toEqual(
      [
        "secrets/lead-email.key",
        "secrets/lead-tracking.key",
        "secrets/letter-code.key",
        "secrets/page-form.key",
        "secrets/pro-csrf.key",
        "secrets/pro-sign-in-link.key",
        "signing-keys",
      ].map((name) => ({ name, recorded_by: os.hostname() })),
    );
    // Checking again on the same machine changes nothing, nor does signing: the key store writes
    // its own bookkeeping (not_after) into the index before each signature.
    await checkSharedFiles(store, first, AT);
    createKeyStore(first).signJws(new Uint8Array([1]), { typ: "test", expiresAt: new Date(Date.now() + 86_400_000) });
    expect(readFileSync(path.join(first.dataDir, "keys", "index.json"), "utf8")).toContain('"not_after": "');
    await checkSharedFiles(store, first, AT);

    // A second machine with nothing copied: every file named, none made.
    const second = machine();
    const missing = await refusal(checkSharedFiles(store, second, AT));
    expect(missing).toBeInstanceOf(SharedFilesError);
    expect(missing.message.split("\n").slice(1)).toEqual([
      ...["lead-tracking", "page-form", "lead-email", "pro-csrf", "letter-code", "pro-sign-in-link"].map(
        (name) => `  ${path.join(secretsOf(second), `${name}.key`)} is missing: ${COPY} (${RECORDED})`,
      ),
      `  ${path.join(second.dataDir, "keys")}${path.sep} is missing: ${COPY} (${RECORDED})`,
    ]);
    expect(existsSync(second.dataDir)).toBe(false);

    // The operator's secret store copies them: accepted.
    copySecrets(first, second);
    copyKeys(first, second);
    await checkSharedFiles(store, second, AT);

    // One secret that differs: that one named.
    writeFileSync(path.join(secretsOf(second), "lead-tracking.key"), "x".repeat(43));
    const differs = await refusal(checkSharedFiles(store, second, AT));
    expect(differs.message.split("\n").slice(1)).toEqual([
      `  ${path.join(secretsOf(second), "lead-tracking.key")} differs from the deployment's: ${COPY} (${RECORDED})`,
    ]);
  });

  it("lets the first command on an empty deployment make and record the secret it reads; refuses it in one line, exit 2, to a machine without it or with another", async () => {
    const opened = await engine.open();
    const store = fingerprintsOf(opened);
    const first = machine();
    await requireSharedFiles(store, first, ["letterCode"], { now: AT });
    expect(readdirSync(secretsOf(first))).toEqual(["letter-code.key"]);
    expect(await opened.rows("SELECT name, recorded_at FROM deployment_files")).toEqual([
      { name: "secrets/letter-code.key", recorded_at: "2026-11-27T02:00:00.000Z" },
    ]);

    // A machine without it: refused, nothing made.
    const bare = machine();
    const missing = await refusal(requireSharedFiles(store, bare, ["letterCode"], { now: AT }));
    expect(missing).toBeInstanceOf(CommandError);
    expect((missing as CommandError).status).toBe(2);
    expect(missing.message).toBe(
      `${path.join(secretsOf(bare), "letter-code.key")} is missing: ${COPY} (${RECORDED}); nothing was done`,
    );
    expect(existsSync(bare.dataDir)).toBe(false);

    // A machine with another key (made by an older version of the command, say): refused, kept as it is.
    const other = machine();
    await requireSharedFiles(fingerprintsOf(await engine.open()), other, ["letterCode"], { now: AT });
    const differs = await refusal(requireSharedFiles(store, other, ["letterCode"], { now: AT }));
    expect([(differs as CommandError).status, differs.message]).toEqual([
      2,
      `${path.join(secretsOf(other), "letter-code.key")} differs from the deployment's: ${COPY} (${RECORDED}); nothing was done`,
    ]);

    // Copied from the deployment: accepted; the server's start then records the others.
    copySecrets(first, bare);
    await requireSharedFiles(store, bare, ["letterCode"], { now: AT });
    await checkSharedFiles(store, bare, AT);
    expect(await opened.rows<{ n: number }>("SELECT count(*) AS n FROM deployment_files")).toEqual([{ n: 7 }]);
  });

  it("takes a key rotation made under the lock as the deployment's keys: a machine still on the old ones is refused until they are copied", async () => {
    const store = fingerprintsOf(await engine.open());
    const first = machine();
    const second = machine();
    await checkSharedFiles(store, first, AT);
    copySecrets(first, second);
    copyKeys(first, second);
    await checkSharedFiles(store, second, AT);

    const quiet = { out: () => undefined, err: () => undefined };
    const rotate = () => executeKeysCommand({ command: "rotate", activateAfterSeconds: 0 }, first, quiet) === 0;
    await requireSharedFiles(store, first, ["keys"], { now: AT, changing: rotate });
    await checkSharedFiles(store, first, AT);
    const message = (await refusal(checkSharedFiles(store, second, AT))).message;
    expect(message).toContain(`${path.join(second.dataDir, "keys")}${path.sep} differs from the deployment's`);
    // The second machine cannot rotate its old keys into the deployment's either.
    const stale = await refusal(
      requireSharedFiles(store, second, ["keys"], {
        now: AT,
        changing: () => executeKeysCommand({ command: "rotate", activateAfterSeconds: 0 }, second, quiet) === 0,
      }),
    );
    expect((stale as CommandError).status).toBe(2);
    copyKeys(first, second);
    await checkSharedFiles(store, second, AT);
  });

  it("records one set when two machines start at once", async () => {
    const opened = await engine.open();
    // The same store opened twice, as two machines would.
    const [one, two] = [fingerprintsOf(opened), fingerprintsOf(opened.another())];
    const results = await Promise.allSettled([
      checkSharedFiles(one, machine(), AT),
      checkSharedFiles(two, machine(), AT),
    ]);
    // One made and recorded its files; the other, which found them recorded, is told to copy them.
    expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
  });
});
