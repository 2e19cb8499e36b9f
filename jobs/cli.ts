/**
 * The command line of every operator command (jobs/*.ts), in one place:
 *
 * - `--help` (or `-h`) anywhere before a `--` prints the command's usage and exit statuses on
 *   stdout and exits 0, before the command reads a setting, opens the database or runs anything;
 * - a usage error (an unknown option or command, a missing or extra argument, a value out of
 *   range) is one line on stderr, `<command>: <what is wrong>; ...--help...`, and exit status 2;
 *   so is a wrong setting in the environment (a ConfigError);
 * - an error the operator can fix (a file missing, a refused declaration) is said without a stack
 *   trace, with the exit status the command documents for it (a CommandError);
 * - anything else is a bug and keeps its stack trace.
 *
 * Each command declares its usage and exit statuses once (a Command); its header comment lists
 * the same statuses, and so does the README (test/integration/operator-commands.test.ts checks
 * the three agree).
 */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { ConfigError } from "../src/config/config.ts";

/** An exit status and what it means, as `--help`, the command's header and the README say it. */
export type ExitStatus = readonly [status: number, meaning: string];

/** The exit statuses every command shares. */
export const EXIT_DONE = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** Another run holds the lock the command needs (`npm run refresh`): nothing to fix, run it again later. */
export const EXIT_BUSY = 3;
export const USAGE_STATUS: ExitStatus = [
  EXIT_USAGE,
  "usage: a wrong option, argument or setting, said in one line (nothing was done)",
];
/**
 * The usage status of a command that reads a deployment secret or the signing keys
 * (jobs/shared-files.ts requireSharedFiles): a machine without the deployment's copy, or with
 * another one, is a wrong setting of that machine, not something the command may make up.
 */
export const USAGE_OR_SECRET_STATUS: ExitStatus = [
  EXIT_USAGE,
  "usage: a wrong option, argument or setting, or this machine lacks the deployment's secret or signing keys or holds others (the file to copy named), said in one line (nothing was done)",
];

export interface Command<Options extends ParseArgsOptionsConfig> {
  /** The npm script: `npm run <name>`. */
  name: string;
  /** The synopsis, one form a line, each starting with `npm run <name>`. */
  usage: readonly string[];
  /** Lines printed after the synopsis by --help (what the options mean). */
  notes?: readonly string[];
  options: Options;
  allowPositionals?: boolean;
  /** Every exit status the command ends with, in order (USAGE_STATUS among them). */
  exitStatuses: readonly ExitStatus[];
}

type Parsed<Options extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: Options; allowPositionals: true; strict: true }>
>;

/** The command line is wrong: said in one line, exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A failure the operator can fix (a file, a value, a refusal): said in one line or a few, no stack trace. */
export class CommandError extends Error {
  override name = "CommandError";
  readonly status: number;
  constructor(message: string, status: number = EXIT_FAILED) {
    super(message);
    this.status = status;
  }
}

/** Whether the arguments ask for help: `--help` or `-h` before any `--` (after it, they are values). */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}

/** What `--help` prints: the synopsis, the notes and the exit statuses. */
export function helpText<Options extends ParseArgsOptionsConfig>(command: Command<Options>): string {
  const [first = `npm run ${command.name}`, ...others] = command.usage;
  return [
    `usage: ${first}`,
    ...others.map((line) => `       ${line}`),
    ...(command.notes && command.notes.length > 0 ? ["", ...command.notes] : []),
    "",
    "exit status:",
    ...command.exitStatuses.map(([status, meaning]) => `  ${status}  ${meaning}`),
    "",
  ].join("\n");
}

/** node:util's parse errors, said the way a person types the command. */
export function describeParseError(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const option = /^Unknown option '([^']*)'/.exec(message)?.[1];
    return `unknown option ${option ?? message}`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const argument = /^Unexpected argument '([^']*)'/.exec(message)?.[1];
    return `unexpected argument ${argument ?? message}: this command takes options only`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    // "Option '--status <value>' argument missing", "Option '--json' does not take an argument"
    return message.replace(/^Option '([^']*)'/, "option $1").replace(/\.$/, "");
  }
  return null;
}

/** Reads the command line: help printed (exit 0), or the options and arguments; a UsageError otherwise. */
export function readCommandLine<Options extends ParseArgsOptionsConfig>(
  command: Command<Options>,
  args: string[],
): Parsed<Options> {
  try {
    return parseArgs({
      args,
      options: command.options,
      allowPositionals: (command.allowPositionals ?? false) as true,
      strict: true,
    });
  } catch (error) {
    const said = describeParseError(error);
    if (said === null) throw error;
    throw new UsageError(said);
  }
}

/** The line a usage error prints. */
export function usageLine(name: string, message: string): string {
  return `${name}: ${message} (npm run ${name} -- --help prints the usage)\n`;
}

/**
 * Runs a command: `--help` printed before anything else, the command line read, then `main`
 * with what was read; usage errors, wrong settings and CommandErrors said without a stack trace
 * and turned into the exit status, anything else rethrown (a bug, with its stack trace).
 */
export async function runCommand<Options extends ParseArgsOptionsConfig>(
  command: Command<Options>,
  main: (commandLine: Parsed<Options>) => Promise<void> | void,
  args: string[] = process.argv.slice(2),
): Promise<void> {
  if (wantsHelp(args)) {
    process.stdout.write(helpText(command));
    process.exitCode = EXIT_DONE;
    return;
  }
  try {
    await main(readCommandLine(command, args));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(usageLine(command.name, error.message));
      process.exitCode = EXIT_USAGE;
    } else if (error instanceof ConfigError) {
      process.stderr.write(`${command.name}: ${error.message}\n`);
      process.exitCode = EXIT_USAGE;
    } else if (error instanceof CommandError) {
      process.stderr.write(`${command.name}: ${error.message}\n`);
      process.exitCode = error.status;
    } else {
      throw error;
    }
  }
}

/** A whole number from `min` to `max` given to `--<name>`; a UsageError otherwise. */
export function wholeNumberOption(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  }
  return value;
}
