/**
 * Agents built on the A2A SDK's 0.3 line (@a2a-js/sdk 0.3, installed as the a2a-sdk-03 alias)
 * against the built server over HTTP: they read /.well-known/agent-card.json without an
 * A2A-Version header and get the card in the 0.3 shape (url, preferredTransport...), then send
 * message/send and tasks/get, served by the SDK 1.x's compat layer on the same /api/a2a and the
 * same skills as the 1.0 clients (test/integration/a2a-client.test.ts). The 1.x client keeps
 * reading the 1.0 card and speaking 1.0 beside them.
 */
import { ClientFactory as ClientFactoryV1, DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import type { Message, MessageSendParams, Task } from "a2a-sdk-03";
import {
  A2AClient,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver as DefaultAgentCardResolverV03,
  JsonRpcTransportFactory,
} from "a2a-sdk-03/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;

/** The card names BASE_URL (http://abeille.test): requests go to the test server's port, as a reverse proxy would send them. */
const viaTestServer: typeof fetch = (input, init) => {
  const url = String(input instanceof Request ? input.url : input).replace(TEST_BASE_URL, server.url);
  return fetch(url, init);
};

beforeAll(async () => {
  server = await startTestServer({ count: 60 });
});
afterAll(async () => {
  await server?.close();
});

function userMessage(parts: Message["parts"], metadata?: Record<string, unknown>): MessageSendParams {
  return {
    message: {
      kind: "message",
      messageId: crypto.randomUUID(),
      role: "user",
      parts,
      ...(metadata ? { metadata } : {}),
    },
  };
}

/** The navigation envelope in an agent message's data part. */
function envelopeOf(result: Message | Task): JsonObject {
  if (result.kind !== "message") throw new Error(`expected a message, got ${JSON.stringify(result).slice(0, 300)}`);
  expect(result.role).toBe("agent");
  const part = result.parts.find((candidate) => candidate.kind === "data");
  if (part?.kind !== "data") throw new Error(`no data part in ${JSON.stringify(result)}`);
  return part.data as JsonObject;
}

const restIds = async (pathAndQuery: string) =>
  (await server.getJson(pathAndQuery)).body.results.map((hit: JsonObject) => hit.merchant.ab_id);

describe("the agent card a 0.3 client reads", () => {
  it("is the 0.3 shape without an A2A-Version header, the 1.0 interfaces kept beside, Vary: A2A-Version", async () => {
    const { status, headers, body } = await server.getJson("/.well-known/agent-card.json");
    expect(status).toBe(200);
    expect(headers.get("vary")).toContain("A2A-Version");
    expect(body).toMatchObject({
      protocolVersion: "0.3.0",
      name: "Abeille",
      url: `${TEST_BASE_URL}/api/a2a`,
      preferredTransport: "JSONRPC",
      version: "1.0.0",
      capabilities: { streaming: false, pushNotifications: false },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer" },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
      },
      security: [{}, { bearer: [] }, { apiKey: [] }],
      supportsAuthenticatedExtendedCard: false,
      supportedInterfaces: [
        { url: `${TEST_BASE_URL}/api/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: `${TEST_BASE_URL}/api/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      ],
    });
    expect(body.skills).toHaveLength(14);
    const quote = body.skills.find((skill: JsonObject) => skill.id === "quote_order_readiness");
    expect(quote.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(body.skills.find((skill: JsonObject) => skill.id === "search_merchants").security).toBeUndefined();
    // The 0.3 card carries no 1.0-only member.
    expect(body.securityRequirements).toBeUndefined();
  });

  it("is the same 0.3 card when the header names 0.3, and the 1.0 card when it names 1.0", async () => {
    const unversioned = (await server.getJson("/.well-known/agent-card.json")).body;
    const legacy = (await server.getJson("/.well-known/agent-card.json", { headers: { "a2a-version": "0.3" } })).body;
    expect(legacy).toEqual(unversioned);
    expect(legacy.url).toBe(`${TEST_BASE_URL}/api/a2a`);
    const current = (await server.getJson("/.well-known/agent-card.json", { headers: { "a2a-version": "1.0" } })).body;
    expect(current.url).toBeUndefined();
    expect(current.securitySchemes.bearer).toEqual({
      httpAuthSecurityScheme: expect.objectContaining({ scheme: "bearer" }),
    });
    expect(current.skills.map((skill: JsonObject) => skill.id)).toEqual(
      legacy.skills.map((skill: JsonObject) => skill.id),
    );
  });
});

describe("the 0.3 SDK's A2AClient", () => {
  it("accepts the card and runs skills with message/send, as the 1.0 endpoint runs them", async () => {
    const client = await A2AClient.fromCardUrl(`${TEST_BASE_URL}/.well-known/agent-card.json`, {
      fetchImpl: viaTestServer,
    });
    expect((await client.getAgentCard()).url).toBe(`${TEST_BASE_URL}/api/a2a`);
    const answer = await client.sendMessage(
      userMessage([{ kind: "data", data: { skill: "search_merchants", arguments: { q: "boulangerie", limit: 5 } } }]),
    );
    if ("error" in answer) throw new Error(`message/send failed: ${JSON.stringify(answer.error)}`);
    const envelope = envelopeOf(answer.result);
    expect(envelope.success).toBe(true);
    expect(envelope.results.map((hit: JsonObject) => hit.merchant.ab_id)).toEqual(
      await restIds("/api/registry/search?q=boulangerie&limit=5"),
    );
  });

  it("gets a rejected task for an unknown skill, and reads it back with tasks/get", async () => {
    const client = await A2AClient.fromCardUrl(`${TEST_BASE_URL}/.well-known/agent-card.json`, {
      fetchImpl: viaTestServer,
    });
    const answer = await client.sendMessage(userMessage([{ kind: "data", data: { skill: "no_such_skill" } }]));
    if ("error" in answer) throw new Error(`message/send failed: ${JSON.stringify(answer.error)}`);
    const task = answer.result;
    if (task.kind !== "task") throw new Error(`expected a task, got ${JSON.stringify(task)}`);
    expect(task.status.state).toBe("rejected");
    const said = task.status.message?.parts.find((part) => part.kind === "text");
    expect(said?.kind === "text" ? said.text : "").toMatch(/^Unknown skill: no_such_skill\. Available skills: /);
    const read = await client.getTask({ id: task.id });
    if ("error" in read) throw new Error(`tasks/get failed: ${JSON.stringify(read.error)}`);
    expect(read.result).toMatchObject({ kind: "task", id: task.id, status: { state: "rejected" } });
  });
});

describe("the 0.3 SDK's ClientFactory", () => {
  it("picks the JSON-RPC transport from the card and searches with a text message", async () => {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: viaTestServer })],
        cardResolver: new DefaultAgentCardResolverV03({ fetchImpl: viaTestServer }),
      }),
    );
    const client = await factory.createFromUrl(TEST_BASE_URL);
    const envelope = envelopeOf(await client.sendMessage(userMessage([{ kind: "text", text: "plombier" }])));
    expect(envelope.query).toBe("plombier");
    expect(envelope.results.map((hit: JsonObject) => hit.merchant.ab_id)).toEqual(
      await restIds("/api/registry/search?q=plombier"),
    );
  });

  it("resolves a merchant named in the message's metadata, as the REST profile", async () => {
    const abId = server.roster.cases.active_contactable?.[0] as string;
    const client = await A2AClient.fromCardUrl(`${TEST_BASE_URL}/.well-known/agent-card.json`, {
      fetchImpl: viaTestServer,
    });
    const answer = await client.sendMessage(
      userMessage([{ kind: "data", data: { ab_id: abId } }], { skill: "resolve_merchant" }),
    );
    if ("error" in answer) throw new Error(`message/send failed: ${JSON.stringify(answer.error)}`);
    const rest = await server.getJson(`/api/registry/resolve/${abId}`);
    expect(envelopeOf(answer.result).merchant).toEqual(rest.body.merchant);
  });
});

describe("both lines on one endpoint", () => {
  it("the 1.x client reads the 1.0 card and picks the 1.0 interface, also with its compat layer on", async () => {
    for (const legacyCompat of [undefined, { enabled: true }]) {
      const resolver = new DefaultAgentCardResolver({
        fetchImpl: viaTestServer,
        ...(legacyCompat ? { legacyCompat } : {}),
      });
      const card = await resolver.resolve(TEST_BASE_URL);
      expect(card.supportedInterfaces.map((item) => item.protocolVersion)).toEqual(["1.0", "0.3"]);
      const client = await new ClientFactoryV1().createFromAgentCard(card);
      expect(client.protocolVersion).toBe("1.0");
    }
  });

  it("answers a 1.0 method sent without A2A-Version, or a 0.3 method under 1.0, saying what to send", async () => {
    const post = async (headers: Record<string, string>, body: JsonObject) => {
      const response = await fetch(`${server.url}/api/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as JsonObject };
    };
    const params = { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "boulangerie" }] } };
    const unversioned = await post({}, { jsonrpc: "2.0", id: 1, method: "SendMessage", params });
    expect(unversioned).toEqual({
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32009,
          message:
            "SendMessage is an A2A 1.0 method: send the header A2A-Version: 1.0 with it (a request without that header is read as A2A 0.3, whose methods are message/send, tasks/get and tasks/cancel)",
        },
      },
    });
    const mixed = await post({ "a2a-version": "1.0" }, { jsonrpc: "2.0", id: 2, method: "message/send", params });
    expect(mixed.status).toBe(200);
    expect(mixed.body.error).toEqual({
      code: -32601,
      message:
        "message/send is an A2A 0.3 method: with A2A-Version: 1.0 send SendMessage, GetTask, CancelTask or ListTasks; for A2A 0.3 leave the A2A-Version header out",
    });
  });
});
