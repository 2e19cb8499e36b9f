/**
 * Operator kill switch for agent access, effective on running servers within a second, no restart.
 *
 *   npm run kill-switch -- on       every agent-facing route answers 503 SERVICE_SUSPENDED
 *   npm run kill-switch -- off      back to normal (unless AGENT_ACCESS_SUSPENDED=true on the server)
 *   npm run kill-switch -- status
 *
 * Discovery documents (/.well-known/*, /openapi.json) and the health check keep answering.
 *
 * Exit status:
 *   0  done: the switch as it now is on stdout
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { loadConfig } from "../src/config/config.ts";
import { KILL_SWITCH_SETTING, parseSwitchValue } from "../src/domain/access/kill-switch.ts";
import { EXIT_DONE, runCommand, USAGE_STATUS, UsageError } from "./cli.ts";
import { withJobStore } from "./job-store.ts";
import { printable } from "./terminal.ts";

await runCommand(
  {
    name: "kill-switch",
    usage: ["npm run kill-switch -- on|off|status"],
    notes: [
      "on: every agent-facing route answers 503 SERVICE_SUSPENDED; off: back to normal (unless",
      "AGENT_ACCESS_SUSPENDED=true on the server). Running servers apply it within 1 s.",
    ],
    options: {},
    allowPositionals: true,
    exitStatuses: [[EXIT_DONE, "done: the switch as it now is on stdout"], USAGE_STATUS],
  },
  async ({ positionals }) => {
    const [command, ...extra] = positionals;
    if (command !== "on" && command !== "off" && command !== "status") {
      throw new UsageError(
        command === undefined ? "on, off or status?" : `unknown command ${printable(command)}: on, off or status`,
      );
    }
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${printable(extra.join(" "))}`);
    const config = loadConfig();
    await withJobStore(config, "kill-switch", async ({ settings }) => {
      if (command !== "status") await settings.set(KILL_SWITCH_SETTING, command, new Date());
      const stored = await settings.find(KILL_SWITCH_SETTING);
      const operator = parseSwitchValue(stored?.value ?? null);
      process.stdout.write(
        `operator kill switch: ${operator ? "ON (agent access suspended)" : "off"}${stored ? ` since ${stored.updatedAt}` : ""}\n`,
      );
      if (config.agentAccessSuspended) {
        process.stdout.write(
          "AGENT_ACCESS_SUSPENDED=true in this environment: servers started with it stay suspended\n",
        );
      }
      if (command !== "status") process.stdout.write("running servers apply it within 1 s\n");
    });
  },
);
