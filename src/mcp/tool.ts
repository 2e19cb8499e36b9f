import type { z } from "zod";
import type { App } from "../app.ts";
import type { Permission } from "../domain/agents/levels.ts";
import type { ErrorCode } from "../errors/catalog.ts";
import type { ServiceError } from "../errors/service-error.ts";
import type { RequestContext } from "../http/envelope.ts";
import type { Caller } from "../http/guard.ts";
import type { OperationId } from "../openapi/operations.ts";

/**
 * One MCP tool: what a language model reads (name, title, description, input schema), what it
 * gets back (the output schema of `structuredContent`: the same navigation envelope the REST
 * surface answers), how it behaves (annotations) and the handler, which calls the same domain
 * function as the REST route.
 */

export interface ToolAnnotations {
  /** The tool reads only. */
  readOnlyHint: boolean;
  /** The tool may destroy or overwrite data (meaningful when not read-only). */
  destructiveHint: boolean;
  /** Calling again with the same arguments has no further effect. */
  idempotentHint: boolean;
  /** The tool reaches beyond the registry (people, mailboxes, other systems). */
  openWorldHint: boolean;
}

export interface ToolContext {
  app: App;
  caller: Caller;
  requestId: string;
  /** The envelope's request context; `selfUrl` names the REST twin of the call when there is one. */
  envelopeContext(selfPath?: string): RequestContext;
}

/** The tool context of one call on a tool door (MCP, A2A): the caller, and envelopes naming the REST twin. */
export function toolContextFor(app: App, caller: Caller, context: RequestContext): ToolContext {
  return {
    app,
    caller,
    requestId: context.requestId,
    envelopeContext: (selfPath) => ({
      ...context,
      selfUrl: selfPath ? `${app.config.baseUrl}${selfPath}` : context.selfUrl,
      now: app.now(),
    }),
  };
}

/** The success envelope, exactly as `successEnvelope` builds it. */
export type Envelope = Record<string, unknown>;

export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** Written for a language model: when to use it, what it returns, what to do next. */
  description: string;
  input: Input;
  /** The success envelope of `structuredContent`. */
  output: z.ZodType;
  annotations: ToolAnnotations;
  /** The permission the tool needs beyond the endpoint's registry:read. */
  permission?: Permission;
  /**
   * The REST operation this tool does too (src/openapi/operations.ts): their shared arguments
   * take the same schema and the tool needs the operation's permission
   * (test/unit/operation-routes.test.ts).
   */
  twin?: OperationId;
  /** What to tell the model after a failure of this tool, by error code (added to the generic guidance). */
  guidance?: Partial<Record<ErrorCode, (error: ServiceError) => string>>;
  run(args: z.output<Input>, context: ToolContext): Envelope | Promise<Envelope>;
}

export function defineTool<Input extends z.ZodType>(definition: ToolDefinition<Input>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
