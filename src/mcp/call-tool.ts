import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { isServiceError, validationError } from "../errors/service-error.ts";
import { requirePermission } from "../http/guard.ts";
import { errorAnswer } from "../http/respond.ts";
import { strictIssues } from "../schemas/leads.ts";
import { type ErrorEnvelopeBody, failureText } from "./guidance.ts";
import { findTool, inputSchemaOf, TOOL_NAMES } from "./registry.ts";
import type { Envelope, ToolContext } from "./tool.ts";

export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
}

/**
 * tools/call. An unknown tool is a protocol fault (JSON-RPC -32602, thrown as ProtocolError, whose
 * message the SDK sends as it is: no "MCP error" prefix). Anything
 * else is a tool result: success mirrors the envelope as JSON text; a failure (bad arguments,
 * unknown merchant, CONTACT_DISABLED, ORDER_DISABLED, missing permission, unexpected fault) is
 * `isError: true` with guidance text and the error envelope the REST route would answer, built by
 * the same renderer from the same error catalog.
 */
export async function callTool(name: string, rawArguments: unknown, context: ToolContext): Promise<ToolResult> {
  const tool = findTool(name);
  if (!tool) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown tool: ${name}. Available tools: ${TOOL_NAMES.join(", ")}`,
    );
  }
  try {
    if (tool.permission) requirePermission(context.caller, tool.permission);
    const parsed = tool.input.safeParse(rawArguments ?? {});
    if (!parsed.success) throw validationError(strictIssues(parsed.error, { "": allowedArguments(name) }));
    const envelope: Envelope = await tool.run(parsed.data, context);
    // Plain JSON: what the client receives is what the text mirrors, without undefined members.
    const structured = JSON.parse(JSON.stringify(envelope)) as Record<string, unknown>;
    return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (failure) {
    const body = errorAnswer(context.envelopeContext(), failure).body as ErrorEnvelopeBody & Record<string, unknown>;
    const guidance = failureText(
      tool,
      name,
      body,
      isServiceError(failure) ? failure : null,
      inputSchemaOf(tool),
      context.caller.agentId !== null,
    );
    return {
      isError: true,
      content: [
        { type: "text", text: guidance },
        { type: "text", text: JSON.stringify(body) },
      ],
      structuredContent: body,
    };
  }
}

function allowedArguments(name: string): string[] {
  const tool = findTool(name);
  if (!tool) return [];
  const properties = inputSchemaOf(tool).properties;
  return typeof properties === "object" && properties !== null && !Array.isArray(properties)
    ? Object.keys(properties)
    : [];
}
