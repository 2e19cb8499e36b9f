/**
 * Operator command for registered agents. Keys are never shown (only their display prefix).
 *
 *   npm run agents -- list [--status active|pending_verification|suspended|revoked] [--json]
 *   npm run agents -- approve <agent_id>   pending_verification or suspended -> active at the requested level
 *   npm run agents -- suspend <agent_id>   the key answers 403 until approved again
 *   npm run agents -- revoke <agent_id>    the key answers 401 for good
 *
 * Running servers see a change within the key cache's lifetime (5 s).
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import type { Agent } from "../src/domain/agents/agent.ts";
import { KEY_CACHE_TTL_MS } from "../src/domain/agents/authenticator.ts";
import type { AgentStatus } from "../src/domain/agents/levels.ts";
import { type AgentCommand, AgentTransitionError, applyAgentCommand } from "../src/domain/agents/operator.ts";
import { grantOf } from "../src/domain/agents/register-agent.ts";
import { createAgentRepository } from "../src/store/agent-repository.ts";
import { JOB_BUSY_TIMEOUT_MS } from "../src/store/connection.ts";
import { openDatabase } from "../src/store/db.ts";
import { printable } from "./terminal.ts";

const STATUSES: AgentStatus[] = ["active", "pending_verification", "suspended", "revoked"];
const USAGE =
  "usage: npm run agents -- list [--status <status>] [--json] | approve <agent_id> | suspend <agent_id> | revoke <agent_id>";

function fail(message: string): never {
  process.stderr.write(`agents: ${message}\n${USAGE}\n`);
  process.exit(1);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { status: { type: "string" }, json: { type: "boolean", default: false } },
});
const [command, agentId, ...extra] = positionals;
if (!command) fail("no command");
if (extra.length > 0) fail(`unexpected arguments: ${extra.join(" ")}`);

const config = loadConfig();
const db = openDatabase(config.databaseFile, { busyTimeoutMs: JOB_BUSY_TIMEOUT_MS });
const agents = createAgentRepository(db);

function describe(agent: Agent) {
  const grant = grantOf(agent, config.rateLimitHourly);
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

try {
  if (command === "list") {
    if (agentId) fail("list takes no agent id");
    const status = values.status as AgentStatus | undefined;
    if (status !== undefined && !STATUSES.includes(status)) fail(`--status must be one of ${STATUSES.join(", ")}`);
    const rows = agents.list(status ? { status } : {}).map(describe);
    if (values.json) {
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
  } else if (command === "approve" || command === "suspend" || command === "revoke") {
    if (!agentId) fail(`${command} needs an agent id`);
    const updated = applyAgentCommand({ agents, now: () => new Date() }, agentId, command as AgentCommand);
    const row = describe(updated);
    process.stdout.write(
      values.json
        ? `${JSON.stringify(row, null, 2)}\n`
        : `${row.agent_id} is now ${row.status} (level ${row.certification_level}); running servers apply it within ${KEY_CACHE_TTL_MS / 1000} s\n`,
    );
  } else {
    fail(`unknown command ${command}`);
  }
} catch (error) {
  if (error instanceof AgentTransitionError) fail(error.message);
  throw error;
} finally {
  db.$client.close();
}
