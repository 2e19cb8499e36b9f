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
 *   2  usage: a wrong option, argument or setting, or this machine lacks the deployment's secret or signing keys or holds others (the file to copy named), said in one line (nothing was done)
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
  CommandError,
  EXIT_DONE,
  EXIT_FAILED,
  EXIT_USAGE,
  helpText,
  readCommandLine,
  USAGE_OR_SECRET_STATUS,
  UsageError,
  usageLine,
  wantsHelp,
} from "./cli.ts";
import { withJobStore } from "./job-store.ts";
import { requireSharedFiles } from "./shared-files.ts";

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
    USAGE_OR_SECRET_STATUS,
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

/** What the command line asks for, once read. */
export type KeysRequest =
  | { command: "list"; json: boolean }
  | { command: "rotate"; activateAfterSeconds: number }
  | { command: "retire"; kid: string };

/** Runs one command; returns the exit code. */
export function runKeysCommand(
  args: string[],
  config: { dataDir: string },
  io: KeysIo,
  storeOptions: KeyStoreOptions = {},
): number {
  const request = readKeysCommand(args, io);
  return typeof request === "number" ? request : executeKeysCommand(request, config, io, storeOptions);
}

/**
 * The request on the command line; or, with --help printed or a usage error said, the exit code
 * (nothing read or written: not even the store is opened).
 */
export function readKeysCommand(args: string[], io: KeysIo): KeysRequest | number {
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
  if (command === "list") return { command, json: values.json === true };
  if (command === "retire") return { command, kid: rest[0] as string };
  const delay =
    values["activate-after"] === undefined ? DEFAULT_ACTIVATION_DELAY_SECONDS : parseDuration(values["activate-after"]);
  if (delay === null) return usage("--activate-after must be a duration such as 0, 90s, 15m, 1h or 2d");
  return { command, activateAfterSeconds: delay };
}

/** Does what was asked of the key store; returns the exit code. */
export function executeKeysCommand(
  request: KeysRequest,
  config: { dataDir: string },
  io: KeysIo,
  storeOptions: KeyStoreOptions = {},
): number {
  // Every command reloads the index itself; no throttle in a one-shot process.
  const store = createKeyStore(config, { reloadIntervalMs: 0, ...storeOptions });
  try {
    switch (request.command) {
      case "list": {
        const keys = store.list();
        io.out(request.json ? `${JSON.stringify(keys, null, 2)}\n` : table(keys));
        return 0;
      }
      case "rotate": {
        const delay = request.activateAfterSeconds;
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
        const key = store.retire(request.kid);
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
  const io: KeysIo = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };
  const request = readKeysCommand(process.argv.slice(2), io);
  if (typeof request === "number") process.exitCode = request;
  else {
    // Only DATA_DIR and DATABASE_URL matter here: an unrelated setting must not block an emergency rotation.
    const config = loadConfig({ DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL });
    let code = EXIT_DONE;
    try {
      // The keys this machine holds must be the deployment's (or are made and recorded, on a new
      // deployment); a rotation or retirement, under the same lock, makes its key set the deployment's.
      await withJobStore(config, "keys", (store) =>
        requireSharedFiles(store.deploymentFiles, config, ["keys"], {
          changing: () => {
            code = executeKeysCommand(request, config, io);
            return code === EXIT_DONE && request.command !== "list";
          },
        }),
      );
      if (code === EXIT_DONE && request.command !== "list" && config.postgres) {
        io.out(
          `recorded as the deployment's signing keys: copy ${path.join(config.dataDir, "keys")} to every other machine (each checks it when it starts)\n`,
        );
      }
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      io.err(`keys: ${error.message}\n`);
      code = error.status;
    }
    process.exitCode = code;
  }
}
