import type { ListTasksRequest, ListTasksResponse, Task } from "@a2a-js/sdk";
import { A2A_VERSION_HEADER } from "@a2a-js/sdk";
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  type TaskStore,
  validateVersion,
} from "@a2a-js/sdk/server";
import type { ToolContext } from "../mcp/tool.ts";
import { agentCard, isLegacyA2aVersion, requestedA2aVersion } from "./card.ts";
import { TOOL_CONTEXT_KEY, ToolSkillExecutor } from "./executor.ts";

/**
 * POST /api/a2a: the A2A JSON-RPC binding, 1.0 and 0.3, on the official SDK (@a2a-js/sdk): its
 * DefaultRequestHandler, with the JsonRpcTransportHandler for 1.0 and the compat layer's
 * LegacyJsonRpcTransportHandler for 0.3 (message/send, tasks/get, tasks/cancel), framework-free
 * (the SDK's Express adapter does the same around them). The A2A-Version header chooses, as in
 * the SDK: 1.0 when it says so, 0.3 when it is absent (0.3 clients never send it) or names 0.3;
 * the same executor answers both, the compat layer translating messages and tasks. No streaming
 * and no push notifications: every skill answers within the call (the card says so). Tasks
 * (refusals only) are kept in memory, a bounded number, and each caller reads only its own.
 */

export const A2A_MAX_BODY_BYTES = 64 * 1024;
const MAX_TASKS = 1000;
const MAX_PAGE = 100;

/** The caller a task belongs to: its agent id, or the client address for anonymous calls. */
function ownerOf(context: ServerCallContext): string {
  return context.user?.userName ?? "";
}

/** An in-memory task store that forgets the oldest tasks past MAX_TASKS, scoped by caller. */
export class BoundedTaskStore implements TaskStore {
  private readonly tasks = new Map<string, { owner: string; task: Task }>();

  async save(task: Task, context: ServerCallContext): Promise<void> {
    this.tasks.delete(task.id);
    this.tasks.set(task.id, { owner: ownerOf(context), task: structuredClone(task) });
    while (this.tasks.size > MAX_TASKS) {
      const oldest = this.tasks.keys().next().value;
      if (oldest === undefined) break;
      this.tasks.delete(oldest);
    }
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const entry = this.tasks.get(taskId);
    return entry && entry.owner === ownerOf(context) ? structuredClone(entry.task) : undefined;
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const owner = ownerOf(context);
    const matching = [...this.tasks.values()]
      .filter((entry) => entry.owner === owner)
      .map((entry) => entry.task)
      .filter((task) => !params.contextId || task.contextId === params.contextId)
      .filter((task) => !params.status || task.status?.state === params.status)
      .reverse();
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), MAX_PAGE);
    const start = Number.parseInt(params.pageToken || "0", 10) || 0;
    const page = matching.slice(start, start + pageSize).map((task) => structuredClone(task));
    return {
      tasks: page,
      nextPageToken: start + pageSize < matching.length ? String(start + pageSize) : "",
      pageSize,
      totalSize: matching.length,
    };
  }
}

const taskStore = new BoundedTaskStore();

interface Handlers {
  requestHandler: DefaultRequestHandler;
  transport: JsonRpcTransportHandler;
  legacyTransport: LegacyJsonRpcTransportHandler;
}
const handlers = new Map<string, Handlers>();

/** One request handler per base URL (the card names the endpoint), behind both protocol lines. */
function handlerFor(baseUrl: string): Handlers {
  let handler = handlers.get(baseUrl);
  if (!handler) {
    const requestHandler = new DefaultRequestHandler(agentCard(baseUrl), taskStore, new ToolSkillExecutor());
    handler = {
      requestHandler,
      transport: new JsonRpcTransportHandler(requestHandler),
      legacyTransport: new LegacyJsonRpcTransportHandler(requestHandler),
    };
    handlers.set(baseUrl, handler);
  }
  return handler;
}

/**
 * A method of the other protocol line than the version the request speaks, which the SDK would
 * answer with a bare "method not found": the refusal says what to send instead. A 1.0 method
 * without the header is a version fault (-32009, HTTP 400, as the SDK answers one); a 0.3 method
 * under A2A-Version: 1.0 is a method 1.0 does not have (-32601, HTTP 200).
 */
function methodOfOtherLine(method: unknown, legacy: boolean): { status: number; code: number; message: string } | null {
  if (typeof method !== "string") return null;
  const name = method.slice(0, 50);
  if (legacy && isV1JsonRpcMethod(method) && !isLegacyJsonRpcMethod(method)) {
    return {
      status: 400,
      code: -32009,
      message: `${name} is an A2A 1.0 method: send the header A2A-Version: 1.0 with it (a request without that header is read as A2A 0.3, whose methods are message/send, tasks/get and tasks/cancel)`,
    };
  }
  if (!legacy && isLegacyJsonRpcMethod(method)) {
    return {
      status: 200,
      code: -32601,
      message: `${name} is an A2A 0.3 method: with A2A-Version: 1.0 send SendMessage, GetTask, CancelTask or ListTasks; for A2A 0.3 leave the A2A-Version header out`,
    };
  }
  return null;
}

export interface A2aAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Answers one JSON-RPC request of the A2A binding. `body` is the request's text, one JSON-RPC
 * object (framing faults are the SDK's: -32700, -32600, -32601, -32602); `headers` gives the
 * A2A-Version asked for.
 */
export async function handleA2aPost(
  body: string,
  headers: Headers,
  toolContext: ToolContext,
  id: string | number | null,
): Promise<A2aAnswer> {
  const { transport, legacyTransport, requestHandler } = handlerFor(toolContext.app.config.baseUrl);
  const versionHeader = headers.get(A2A_VERSION_HEADER);
  const legacy = isLegacyA2aVersion(versionHeader);
  const caller = toolContext.caller;
  const userName = caller.agentId ?? `anonymous:${caller.clientAddress}`;
  const context = new ServerCallContext({
    user: { isAuthenticated: caller.agentId !== null, userName },
    requestedVersion: requestedA2aVersion(versionHeader),
    state: new Map<string, unknown>([[TOOL_CONTEXT_KEY, toolContext]]),
  });
  const mapError = legacy
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError;
  const otherLine = methodOfOtherLine((JSON.parse(body) as { method?: unknown }).method, legacy);
  if (otherLine) {
    return {
      status: otherLine.status,
      body: { jsonrpc: "2.0", id, error: { code: otherLine.code, message: otherLine.message } },
    };
  }
  try {
    validateVersion(context.requestedVersion, await requestHandler.getAgentCard(), "JSONRPC");
    const answer = legacy ? await legacyTransport.handle(body, context) : await transport.handle(body, context);
    if (typeof (answer as AsyncGenerator)[Symbol.asyncIterator] === "function") {
      // Streaming methods: the card says streaming is off, and the SDK refuses them before this.
      const stream = answer as AsyncGenerator<unknown>;
      await stream.return(undefined);
      return {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id,
          error: {
            code: -32004,
            message: `Streaming is not supported by this agent; use ${legacy ? "message/send" : "SendMessage"}`,
          },
        },
      };
    }
    return { status: 200, body: answer as unknown as Record<string, unknown> };
  } catch (failure) {
    return { status: 400, body: { jsonrpc: "2.0", id, error: mapError(failure) } };
  }
}
