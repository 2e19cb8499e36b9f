/**
 * Operator command for the manifest signing keys in DATA_DIR/keys/.
 *
 *   npm run keys -- list [--json]
 *   npm run keys -- rotate [--activate-after <duration>]   (default 1h; 0 = sign with it now)
 *   npm run keys -- retire <kid>
 *
 * Durations: a number of seconds, or a number with ms, s, m, h or d (`90s`, `15m`, `1h`, `2d`).
 * `rotate` publishes the next key at once and lets it sign after the delay; the current key is
 * retired at that moment and stays in the key set until every manifest it signed has expired.
 * A running server picks the change up within a second.
 *
 * Exit status:
 *   0  done
 *   1  refused: no such key, or a key that must not be retired yet (the reason on stderr)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config/config.ts";
import { kidSchema } from "../src/schemas/signing.ts";
import { JWKS_PUBLIC_PATH, writeJwksFile } from "../src/signing/jwks-file.ts";
import {
  createKeyStore,
  type KeyInfo,
  type KeyStore,
  KeyStoreError,
  type KeyStoreOptions,
} from "../src/signing/key-store.ts";
import { DEFAULT_ACTIVATION_DELAY_SECONDS } from "../src/signing/policy.ts";
import {
  EXIT_DONE,
  EXIT_FAILED,
  EXIT_USAGE,
  helpText,
  readCommandLine,
  USAGE_STATUS,
  UsageError,
  usageLine,
  wantsHelp,
} from "./cli.ts";

const KEYS_COMMAND = {
  name: "keys",
  usage: [
    "npm run keys -- list [--json]",
    "npm run keys -- rotate [--activate-after <duration>]   (default 1h, 0 = now)",
    "npm run keys -- retire <kid>",
  ],
  notes: [
    "Durations: seconds, or a number with ms, s, m, h or d (90s, 15m, 1h, 2d). rotate publishes the next",
    "key at once and signs with it after the delay; retire drops a key once its manifests have expired.",
  ],
  options: { "activate-after": { type: "string" }, json: { type: "boolean" } },
  allowPositionals: true,
  exitStatuses: [
    [EXIT_DONE, "done"],
    [EXIT_FAILED, "refused: no such key, or a key that must not be retired yet (the reason on stderr)"],
    USAGE_STATUS,
  ],
} as const;

/** Seconds in a duration such as `0`, `3600`, `90s`, `15m`, `1h`, `2d`, `500ms`; null when malformed. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match?.[1]) return null;
  const amount = Number(match[1]);
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h" | "d"];
  return amount * unit;
}

export interface KeysIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs one command; returns the exit code. */
export function runKeysCommand(
  args: string[],
  config: { dataDir: string },
  io: KeysIo,
  storeOptions: KeyStoreOptions = {},
): number {
  if (wantsHelp(args)) {
    io.out(helpText(KEYS_COMMAND));
    return EXIT_DONE;
  }
  const usage = (message: string) => {
    io.err(usageLine(KEYS_COMMAND.name, message));
    return EXIT_USAGE;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    throw error;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (command !== "list" && command !== "rotate" && command !== "retire") {
    return usage(
      command === undefined
        ? "no command: list, rotate or retire"
        : `unknown command ${command}: list, rotate or retire`,
    );
  }
  if (command === "retire" ? rest.length !== 1 : rest.length > 0) {
    return usage(command === "retire" ? "retire takes one key id" : `${command} takes no argument`);
  }
  // Every command reloads the index itself; no throttle in a one-shot process.
  const store = createKeyStore(config, { reloadIntervalMs: 0, ...storeOptions });
  try {
    switch (command) {
      case "list": {
        const keys = store.list();
        io.out(values.json ? `${JSON.stringify(keys, null, 2)}\n` : table(keys));
        return 0;
      }
      case "rotate": {
        const delay =
          values["activate-after"] === undefined
            ? DEFAULT_ACTIVATION_DELAY_SECONDS
            : parseDuration(values["activate-after"]);
        if (delay === null) return usage("--activate-after must be a duration such as 0, 90s, 15m, 1h or 2d");
        const key = store.rotate({ activateAfterSeconds: delay });
        io.out(
          `created ${key.kid}: published now, signs from ${key.activates_at}` +
            `${delay === 0 ? " (at once)" : ""}; the previous key retires at that moment\n`,
        );
        io.out(table(store.list()));
        republish(config, store, io);
        return 0;
      }
      case "retire": {
        const key = store.retire(rest[0] as string);
        io.out(
          `retired ${key.kid}: ${key.published ? `stays in the key set until ${key.not_after}` : "no unexpired manifest carries it; dropped from the key set"}\n`,
        );
        io.out(table(store.list()));
        republish(config, store, io);
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof KeyStoreError) {
      io.err(`keys: ${error.message}\n`);
      return EXIT_FAILED;
    }
    throw error;
  }
}

/** The static key set in the publish folder must hold a new key before it signs: rewrite it now. */
function republish(config: { dataDir: string }, store: KeyStore, io: KeysIo): void {
  const publishDir = path.join(config.dataDir, "publish");
  if (!existsSync(publishDir)) return;
  if (writeJwksFile(publishDir, store.jwks())) io.out(`rewrote ${path.join(publishDir, JWKS_PUBLIC_PATH)}\n`);
}

function parse(args: string[]) {
  // One key id in 64 starts with "-" (base64url): it is an argument, not an option.
  const kidAt = args.includes("--")
    ? -1
    : args.findIndex((arg) => arg.startsWith("-") && kidSchema.safeParse(arg).success);
  return readCommandLine(KEYS_COMMAND, kidAt < 0 ? args : [...args.slice(0, kidAt), "--", ...args.slice(kidAt)]);
}

function table(keys: KeyInfo[]): string {
  const header = ["kid", "state", "in key set", "activates_at", "retired_at", "not_after"];
  const rows = keys.map((key) => [
    key.kid,
    key.state,
    key.published ? "yes" : "no",
    key.activates_at,
    key.retired_at ?? "-",
    key.not_after ?? "-",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    `${cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd()}\n`;
  return [line(header), ...rows.map(line)].join("");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Only DATA_DIR matters here: an unrelated setting must not block an emergency rotation.
  const config = loadConfig({ DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL });
  const args = process.argv.slice(2);
  const code = runKeysCommand(args, config, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
  process.exitCode = code;
  if (code === EXIT_DONE && config.postgres && (args.includes("rotate") || args.includes("retire"))) {
    // Every machine must publish this key set: it becomes the deployment's, checked at each start.
    const { openPostgresPool } = await import("../src/store/postgres/pool.ts");
    const { replaceDeploymentFiles } = await import("../src/store/postgres/deployment-files.ts");
    const { recordSigningKeys } = await import("./shared-files.ts");
    const pool = openPostgresPool({ ...config.postgres, poolMax: 1, applicationName: "abeille keys" });
    try {
      await recordSigningKeys(config, (entries, by) => replaceDeploymentFiles(pool, entries, by));
      process.stdout.write(
        `recorded as the deployment's signing keys: copy ${path.join(config.dataDir, "keys")} to every other machine (each checks it when it starts)\n`,
      );
    } finally {
      await pool.end();
    }
  }
}
