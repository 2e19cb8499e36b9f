/**
 * Operator command for registered agents. Keys are never shown (only their display prefix).
 *
 *   npm run agents -- list [--status active|pending_verification|suspended|revoked] [--json]
 *   npm run agents -- approve <agent_id>   pending_verification or suspended -> active at the requested level
 *   npm run agents -- suspend <agent_id>   the key answers 403 until approved again
 *   npm run agents -- revoke <agent_id>    the key answers 401 for good
 *
 * Running servers see a change within the key cache's lifetime (5 s).
 *
 * Exit status:
 *   0  done
 *   1  refused: no such agent, or a change its status does not allow (the reason on stderr)
 *   2  usage: a wrong option, argument or setting, said in one line (nothing was done)
 */
import { type Config, loadConfig } from "../src/config/config.ts";
import type { Agent, AgentStore } from "../src/domain/agents/agent.ts";
import { KEY_CACHE_TTL_MS } from "../src/domain/agents/authenticator.ts";
import type { AgentStatus } from "../src/domain/agents/levels.ts";
import { type AgentCommand, AgentTransitionError, applyAgentCommand } from "../src/domain/agents/operator.ts";
import { grantOf } from "../src/domain/agents/register-agent.ts";
import { CommandError, EXIT_DONE, EXIT_FAILED, runCommand, USAGE_STATUS, UsageError } from "./cli.ts";
import { withJobStore } from "./job-store.ts";
import { printable } from "./terminal.ts";

const STATUSES: AgentStatus[] = ["active", "pending_verification", "suspended", "revoked"];
const COMMANDS = ["list", "approve", "suspend", "revoke"];

await runCommand(
  {
    name: "agents",
    usage: [
      `npm run agents -- list [--status ${STATUSES.join("|")}] [--json]`,
      "npm run agents -- approve <agent_id> [--json]",
      "npm run agents -- suspend <agent_id> [--json]",
      "npm run agents -- revoke <agent_id> [--json]",
    ],
    notes: [
      "approve: pending_verification or suspended -> active at the requested level",
      "suspend: the key answers 403 until approved again; revoke: the key answers 401 for good",
      `Keys are never shown (only their prefix). Running servers apply a change within ${KEY_CACHE_TTL_MS / 1000} s.`,
    ],
    options: { status: { type: "string" }, json: { type: "boolean", default: false } },
    allowPositionals: true,
    exitStatuses: [
      [EXIT_DONE, "done"],
      [EXIT_FAILED, "refused: no such agent, or a change its status does not allow (the reason on stderr)"],
      USAGE_STATUS,
    ],
  },
  async ({ values, positionals }) => {
    const [command, agentId, ...extra] = positionals;
    if (!command) throw new UsageError(`no command: ${COMMANDS.join(", ")}`);
    if (!COMMANDS.includes(command))
      throw new UsageError(`unknown command ${printable(command)}: ${COMMANDS.join(", ")}`);
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${printable(extra.join(" "))}`);
    if (command === "list" && agentId) throw new UsageError("list takes no agent id");
    if (command !== "list" && !agentId) throw new UsageError(`${command} needs an agent id`);
    const status = values.status as AgentStatus | undefined;
    if (status !== undefined && !STATUSES.includes(status)) {
      throw new UsageError(`--status must be one of ${STATUSES.join(", ")}`);
    }
    if (command === "list") await list(status, values.json);
    else await change(command as AgentCommand, agentId as string, values.json);
  },
);

/** Runs `work` over the store's agents (either engine, jobs/job-store.ts), closed after it. */
function withAgents<T>(work: (agents: AgentStore, describe: (agent: Agent) => AgentRow) => Promise<T>): Promise<T> {
  const config = loadConfig();
  return withJobStore(config, "agents", (store) =>
    work(store.agents, (agent) => describeAgent(agent, config.rateLimitHourly)),
  );
}

type AgentRow = ReturnType<typeof describeAgent>;

function describeAgent(agent: Agent, rateLimitHourly: Config["rateLimitHourly"]) {
  const grant = grantOf(agent, rateLimitHourly);
  return {
    agent_id: agent.agentId,
    agent_name: agent.agentName,
    contact_email: agent.contactEmail,
    agent_url: agent.agentUrl,
    status: agent.status,
    requested_level: agent.requestedLevel,
    certification_level: agent.certificationLevel,
    permissions: agent.status === "active" || agent.status === "pending_verification" ? grant.permissions : [],
    rate_limit_hourly: grant.rate_limit_hourly,
    key_prefix: `${agent.keyPrefix}…`,
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}

function list(status: AgentStatus | undefined, json: boolean): Promise<void> {
  return withAgents(async (agents, describe) => {
    const rows = (await agents.list(status ? { status } : {})).map(describe);
    if (json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    } else if (rows.length === 0) {
      process.stdout.write("no agents\n");
    } else {
      for (const row of rows) {
        process.stdout.write(
          `${row.agent_id}  ${row.status.padEnd(20)}  level ${row.certification_level}/${row.requested_level}  ${row.key_prefix}  ${printable(row.agent_name)} <${printable(row.contact_email)}>\n`,
        );
      }
      process.stdout.write(`${rows.length} agent(s); level shown as granted/requested\n`);
    }
  });
}

function change(command: AgentCommand, agentId: string, json: boolean): Promise<void> {
  return withAgents(async (agents, describe) => {
    let agent: Agent;
    try {
      agent = await applyAgentCommand({ agents, now: () => new Date() }, agentId, command);
    } catch (error) {
      if (error instanceof AgentTransitionError) throw new CommandError(printable(error.message));
      throw error;
    }
    const row = describe(agent);
    process.stdout.write(
      json
        ? `${JSON.stringify(row, null, 2)}\n`
        : `${row.agent_id} is now ${row.status} (level ${row.certification_level}); running servers apply it within ${KEY_CACHE_TTL_MS / 1000} s\n`,
    );
  });
}
