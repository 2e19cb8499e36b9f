/**
 * The official A2A SDK client (@a2a-js/sdk 1.x, protocol 1.0) against the built server over HTTP:
 * it reads /.well-known/agent-card.json, picks the JSON-RPC interface, and sends messages whose
 * skills run the same domain functions as the REST routes (search, resolve, leads). The card
 * names BASE_URL (http://abeille.test); the client's fetch is pointed at the test server's port,
 * as a reverse proxy would.
 */
import { type Message, Role, type Task, TaskState } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let client: Client;

function viaTestServer(headers: Record<string, string> = {}): typeof fetch {
  return (input, init) => {
    const url = String(input instanceof Request ? input.url : input).replace(TEST_BASE_URL, server.url);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(url, { ...init, headers: merged });
  };
}

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const fetchImpl = viaTestServer(headers);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(TEST_BASE_URL);
}

beforeAll(async () => {
  server = await startTestServer({ count: 60 });
  client = await connect();
});
afterAll(async () => {
  await server?.close();
});

function userMessage(parts: Message["parts"], metadata: Record<string, unknown> = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

const text = (value: string): Message["parts"][number] => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
const data = (value: Record<string, unknown>): Message["parts"][number] => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

async function send(message: Message, via: Client = client) {
  return via.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined });
}

function isTask(result: Message | Task): result is Task {
  return "status" in result;
}

/** The data part of an agent message: the navigation envelope. */
function envelopeOf(message: Message | undefined): JsonObject {
  const part = message?.parts.find((candidate) => candidate.content?.$case === "data");
  if (part?.content?.$case !== "data") throw new Error(`no data part in ${JSON.stringify(message)}`);
  return part.content.value as JsonObject;
}

function answerOf(result: Message | Task): JsonObject {
  if (isTask(result)) throw new Error(`expected a message, got a task: ${JSON.stringify(result.status)}`);
  expect(result.role).toBe(Role.ROLE_AGENT);
  return envelopeOf(result);
}

const first = (name: string) => {
  const id = server.roster.cases[name]?.[0];
  if (!id) throw new Error(`the demo roster has no ${name} merchant`);
  return id;
};

describe("the agent card as the SDK client reads it", () => {
  it("offers the JSON-RPC interface at /api/a2a and one skill per tool", async () => {
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces).toEqual([
      { url: `${TEST_BASE_URL}/api/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: `${TEST_BASE_URL}/api/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ]);
    expect(client.protocolVersion).toBe("1.0");
    expect(card.skills.map((skill) => skill.id)).toContain("search_merchants");
    expect(card.skills).toHaveLength(14);
    expect(card.securitySchemes.bearer?.scheme?.$case).toBe("httpAuthSecurityScheme");
    expect(card.securitySchemes.apiKey?.scheme?.$case).toBe("apiKeySecurityScheme");
  });
});

describe("skills run the same domain functions as the REST routes", () => {
  it("search_merchants answers the REST search's merchants, in order", async () => {
    const envelope = answerOf(
      await send(userMessage([data({ skill: "search_merchants", arguments: { q: "boulangerie", limit: 5 } })])),
    );
    const rest = await server.getJson("/api/registry/search?q=boulangerie&limit=5");
    const ids = (answer: JsonObject) => answer.results.map((hit: JsonObject) => hit.merchant.ab_id);
    expect(envelope.success).toBe(true);
    expect(ids(envelope)).toEqual(ids(rest.body));
    expect(ids(rest.body).length).toBeGreaterThan(0);
  });

  it("a text-only message searches with that text", async () => {
    const envelope = answerOf(await send(userMessage([text("boulangerie")])));
    const rest = await server.getJson("/api/registry/search?q=boulangerie");
    expect(envelope.query).toBe("boulangerie");
    expect(envelope.results.map((hit: JsonObject) => hit.merchant.ab_id)).toEqual(
      rest.body.results.map((hit: JsonObject) => hit.merchant.ab_id),
    );
  });

  it("resolve_merchant (named in metadata) answers the REST profile", async () => {
    const abId = first("active_contactable");
    const envelope = answerOf(await send(userMessage([data({ ab_id: abId })], { skill: "resolve_merchant" })));
    const rest = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(envelope.merchant.ab_id).toBe(abId);
    expect(envelope.merchant).toEqual(rest.body.merchant);
    expect(envelope.credentials).toEqual(rest.body.credentials);
  });

  it("submit_lead creates a lead the REST lead route then reads with its tracking token", async () => {
    const abId = first("active_contactable");
    const envelope = answerOf(
      await send(
        userMessage([
          data({
            skill: "submit_lead",
            arguments: {
              ab_id: abId,
              contact_name: "Camille Martin",
              contact_email: "camille.martin@example.fr",
              lead_type: "quote",
              message: "Devis pour 40 personnes le 12 juin, via A2A.",
            },
          }),
        ]),
      ),
    );
    expect(envelope.success).toBe(true);
    const leadId = envelope.lead_id as string;
    const token = envelope.tracking_token as string;
    expect(envelope.tracking_status).toBe("received");
    const rest = await server.getJson(`/api/leads/${leadId}`, { headers: { "x-tracking-token": token } });
    expect(rest.status).toBe(200);
    expect(rest.body.data.tracking_status).toMatch(/^(received|delivered)$/);
  });
});

describe("refusals", () => {
  it("an unknown skill is a rejected task naming the available skills", async () => {
    const result = await send(userMessage([data({ skill: "book_table", arguments: {} })]));
    if (!isTask(result)) throw new Error("expected a task");
    expect(result.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const reason = result.status?.message?.parts[0]?.content;
    expect(reason?.$case === "text" && reason.value).toMatch(
      /^Unknown skill: book_table\. Available skills: search_merchants, /,
    );
  });

  it("invalid arguments are a rejected task carrying the guidance and the VALIDATION_ERROR envelope", async () => {
    const result = await send(userMessage([data({ skill: "resolve_merchant", arguments: { ab_id: "nope" } })]));
    if (!isTask(result)) throw new Error("expected a task");
    expect(result.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(result.metadata).toEqual({ skill: "resolve_merchant", error_code: "VALIDATION_ERROR" });
    const envelope = envelopeOf(result.status?.message);
    expect(envelope.error.code).toBe("VALIDATION_ERROR");
    // The caller can read its task back; another caller cannot.
    const again = await client.getTask({ tenant: "", id: result.id, historyLength: undefined });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const listed = await client.listTasks(tasksOfContext(result.contextId));
    expect(listed.tasks.map((task) => task.id)).toEqual([result.id]);
    const other = await connect({ authorization: `Bearer ${await registeredKey()}` });
    await expect(other.getTask({ tenant: "", id: result.id, historyLength: undefined })).rejects.toThrow(/not found/i);
    const otherList = await other.listTasks(tasksOfContext(result.contextId));
    expect(otherList.tasks).toEqual([]);
  });

  it("quote_order_readiness without a key is rejected with the FORBIDDEN guidance saying a key is needed", async () => {
    const result = await send(
      userMessage([data({ skill: "quote_order_readiness", arguments: { ab_id: first("order_ready") } })]),
    );
    if (!isTask(result)) throw new Error("expected a task");
    expect(result.metadata).toEqual({ skill: "quote_order_readiness", error_code: "FORBIDDEN" });
    const guidance = result.status?.message?.parts[0]?.content;
    expect(guidance?.$case === "text" && guidance.value).toContain("This tool needs an API key");
  });

  it("a bad API key is refused before the message is read: the client reports the 401", async () => {
    const refused = await connect({ authorization: "Bearer abk_unknown" });
    await expect(send(userMessage([text("boulangerie")]), refused)).rejects.toThrow(
      /Unusable credentials: the API key is malformed/,
    );
    const raw = await fetch(`${server.url}/api/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: "Bearer abk_unknown" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "x" } }),
    });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32001, data: { code: "UNAUTHORIZED" } },
    });
  });
});

describe("the endpoint over raw HTTP", () => {
  const sendMessage = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "SendMessage",
    params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "boulangerie" }] } },
  });

  it("answers a SendMessage with the A2A-Version header in the JSON-RPC form, the id echoed", async () => {
    const response = await fetch(`${server.url}/api/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify(sendMessage(7)),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as JsonObject;
    expect(body.id).toBe(7);
    expect(body.result.message.role).toBe("ROLE_AGENT");
    expect(body.result.message.parts[1].data.query).toBe("boulangerie");
  });

  it("an unknown method is -32601 with the id", async () => {
    const response = await fetch(`${server.url}/api/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "message/send", params: {} }),
    });
    const body = (await response.json()) as JsonObject;
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 8, error: { code: -32601 } });
  });

  it("a body that is not JSON is -32700 and a batch -32600, both with HTTP 400", async () => {
    for (const [body, code] of [
      ["{", -32700],
      ["[]", -32600],
      ['"x"', -32600],
    ] as const) {
      const response = await fetch(`${server.url}/api/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body,
      });
      expect(response.status, body).toBe(400);
      expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code } });
    }
  });

  it("a 1.0 method without A2A-Version counts as 0.3 (the protocol's rule) and is refused saying so", async () => {
    const response = await fetch(`${server.url}/api/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sendMessage(10)),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 10, error: { code: -32009 } });
  });

  it("refuses a Host or Origin naming another site with 403 (DNS-rebinding protection)", async () => {
    const response = await fetch(`${server.url}/api/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", origin: "http://evil.example" },
      body: JSON.stringify(sendMessage(9)),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as JsonObject).error.code).toBe(-32600);
  });
});

/** ListTasks of one conversation, every state. */
function tasksOfContext(contextId: string) {
  return {
    tenant: "",
    contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: undefined,
    pageToken: "",
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: undefined,
  };
}

async function registeredKey(): Promise<string> {
  const { body } = await server.getJson("/api/agents/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent_name: "a2a-test", contact_email: "agent@example.fr", requested_level: 1 }),
  });
  if (!body.api_key) throw new Error(`registration failed: ${JSON.stringify(body)}`);
  return body.api_key as string;
}
