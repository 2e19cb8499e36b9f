import { type Message, type Part, Role, type Task, TaskState } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { AgentEvent } from "@a2a-js/sdk/server";
import { callTool } from "../mcp/call-tool.ts";
import { findTool, TOOL_NAMES } from "../mcp/registry.ts";
import type { ToolContext } from "../mcp/tool.ts";

/**
 * The A2A agent's logic: a message names a skill (one per MCP tool) and its arguments, and the
 * skill runs through the same `callTool` as the MCP endpoint (argument schemas, permissions,
 * domain function, error envelope and guidance), so the three doors (REST, MCP, A2A) answer alike.
 *
 * - A data part `{"skill": "...", "arguments": {...}}` (or `metadata.skill` on the message and
 *   the arguments as the data part) runs that skill. A message with text only searches merchants
 *   with that text (search_merchants, `q`).
 * - Success: an agent message with a short text and a data part holding the navigation envelope.
 * - Refusal: a task, `rejected` when the request cannot be run as sent (unknown skill, invalid
 *   arguments, missing permission), `failed` otherwise; its status message carries the guidance
 *   text and the error envelope.
 */

/** The key of the caller's tool context in the SDK's per-call state. */
export const TOOL_CONTEXT_KEY = "abeille.toolContext";

const MAX_TEXT_QUERY = 200;
const REJECTED_CODES = new Set(["VALIDATION_ERROR", "FORBIDDEN", "UNAUTHORIZED", "MERCHANT_NOT_FOUND", "NOT_FOUND"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

function agentMessage(contextId: string, taskId: string, parts: Part[], metadata: Record<string, unknown>): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

type Request = { skill: string; arguments: unknown } | { problem: string };

/** Which skill the message asks for, with which arguments. */
export function readRequest(message: Message): Request {
  const data = message.parts.flatMap((part) =>
    part.content?.$case === "data" && isRecord(part.content.value) ? [part.content.value] : [],
  );
  const texts = message.parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value.trim()] : []));
  const named =
    isRecord(message.metadata) && typeof message.metadata.skill === "string" ? message.metadata.skill : null;
  if (named !== null) return { skill: named, arguments: data[0] ?? {} };
  const call = data.find((value) => typeof value.skill === "string");
  if (call) return { skill: call.skill as string, arguments: call.arguments ?? {} };
  if (data.length > 0) {
    return { problem: 'a data part must name its skill: {"skill": "<skill id>", "arguments": {...}}' };
  }
  const text = texts.filter(Boolean).join(" ");
  if (text === "") return { problem: "the message has neither a data part naming a skill nor text to search with" };
  if (text.length > MAX_TEXT_QUERY) {
    return {
      problem: `a text search is at most ${MAX_TEXT_QUERY} characters; send a data part naming a skill instead`,
    };
  }
  return { skill: "search_merchants", arguments: { q: text } };
}

export class ToolSkillExecutor implements AgentExecutor {
  async execute(requestContext: RequestContext, eventBus: ExecutionEventBus): Promise<void> {
    const { contextId, taskId } = requestContext;
    const userMessage = requestContext.userMessage;
    const toolContext = requestContext.context.state.get(TOOL_CONTEXT_KEY) as ToolContext | undefined;
    if (!toolContext) throw new Error("A2A call without its tool context");
    const request = readRequest(userMessage);
    const refuse = (state: TaskState, parts: Part[], metadata: Record<string, unknown>) => {
      const task: Task = {
        id: taskId,
        contextId,
        status: {
          state,
          message: agentMessage(contextId, taskId, parts, metadata),
          timestamp: toolContext.app.now().toISOString(),
        },
        artifacts: [],
        history: [userMessage],
        metadata,
      };
      eventBus.publish(AgentEvent.task(task));
      eventBus.finished();
    };
    if ("problem" in request) {
      refuse(TaskState.TASK_STATE_REJECTED, [textPart(`Cannot run this message: ${request.problem}.`)], {});
      return;
    }
    if (!findTool(request.skill)) {
      refuse(
        TaskState.TASK_STATE_REJECTED,
        [textPart(`Unknown skill: ${request.skill.slice(0, 100)}. Available skills: ${TOOL_NAMES.join(", ")}`)],
        { skill: request.skill.slice(0, 100) },
      );
      return;
    }
    const result = await callTool(request.skill, request.arguments, toolContext);
    const envelope = result.structuredContent;
    if (result.isError) {
      const code = String((envelope.error as { code?: unknown } | undefined)?.code ?? "");
      const guidance = result.content[0]?.text ?? code;
      refuse(
        REJECTED_CODES.has(code) ? TaskState.TASK_STATE_REJECTED : TaskState.TASK_STATE_FAILED,
        [textPart(guidance), dataPart(envelope)],
        { skill: request.skill, error_code: code },
      );
      return;
    }
    eventBus.publish(
      AgentEvent.message(
        agentMessage(
          contextId,
          "",
          [
            textPart(`${request.skill} succeeded; the data part is the answer's navigation envelope.`),
            dataPart(envelope),
          ],
          { skill: request.skill },
        ),
      ),
    );
    eventBus.finished();
  }

  async cancelTask(): Promise<void> {
    // Every skill answers within the call: there is never a running task to cancel.
  }
}
