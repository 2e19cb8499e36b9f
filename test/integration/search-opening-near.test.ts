/**
 * Issue 37, items 4 and 5, against the built server: each search hit's merchant.opening at a fixed
 * instant (`at`: a Tuesday, a Sunday, Noël, the merchant's exceptions), the open_now and open_at
 * filters, a point without a radius (no distance cut, nearer first) and near= (a town or a postal
 * code, an unknown one refused with the closest names), over HTTP, through the official MCP SDK
 * client and the official A2A SDK client. Two bakeries of the demo get known hours and exceptions
 * through the operator's command (`merchants update`), which also brings the search index up to date.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { type Message, Role } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlaceFinder } from "../../src/seed/communes.ts";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { runJob } from "../helpers/run-job.ts";
import { type JsonObject, startTestServer, TEST_BASE_URL, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
/** Two ACTIVE bakeries of the demo: `eve` works the morning of 24 December, `noel` the morning of Noël. */
let eve: { abId: string; name: string };
let noel: { abId: string; name: string };

const BAKERY_WEEK = {
  lundi: "fermé",
  mardi: "07:00-13:00,15:00-19:30",
  mercredi: "07:00-19:30",
  jeudi: "07:00-19:30",
  vendredi: "07:00-19:30",
  samedi: "07:00-19:30",
  dimanche: "07:00-12:30",
};

beforeAll(async () => {
  server = await startTestServer({ count: 300 });
  const { body } = await server.getJson("/api/registry/search?q=boulangerie&limit=50");
  const bakeries = (body.results as JsonObject[]).filter((result) => result._state.merchant_status === "ACTIVE");
  const [first, second] = bakeries.map((result) => ({ abId: result.merchant.ab_id, name: result.merchant.name }));
  if (!first || !second) throw new Error("the demo has fewer than two active bakeries");
  [eve, noel] = [first, second];
  const update = async (abId: string, declaration: JsonObject) => {
    const file = path.join(server.dataDir, `${abId}.json`);
    writeFileSync(file, JSON.stringify(declaration));
    const job = await runJob(["jobs/merchants.ts", "update", abId, file, "--actor", "operator:test"], {
      dataDir: server.dataDir,
      baseUrl: TEST_BASE_URL,
    });
    expect(job.code, job.stderr).toBe(0);
  };
  await update(eve.abId, {
    hours: BAKERY_WEEK,
    hours_exceptions: [{ from: "2026-12-24", hours: "07:00-12:00", note: "veille de Noël" }],
  });
  await update(noel.abId, {
    hours: BAKERY_WEEK,
    hours_exceptions: [
      { from: "2026-12-25", hours: "08:00-12:00" },
      { from: "2026-12-28", to: "2026-12-31", hours: "fermé", note: "congés" },
    ],
  });
});
afterAll(async () => {
  await server?.close();
});

const search = (query: string) => server.getJson(`/api/registry/search?${query}`);
const at = (instant: string) => `at=${encodeURIComponent(instant)}`;
const ids = (body: JsonObject): string[] => body.results.map((result: JsonObject) => result.merchant.ab_id);

/** The opening of one merchant, found by its name, at an instant. */
async function openingOf(merchant: { abId: string; name: string }, instant: string): Promise<JsonObject> {
  const { status, body } = await search(`q=${encodeURIComponent(merchant.name)}&limit=50&${at(instant)}`);
  expect(status).toBe(200);
  const hit = body.results.find((result: JsonObject) => result.merchant.ab_id === merchant.abId);
  if (!hit) throw new Error(`${merchant.name} not found`);
  return hit.merchant.opening;
}

/** Every page of an answer, following next_cursor. */
async function everyPage(query: string): Promise<JsonObject[]> {
  const results: JsonObject[] = [];
  let cursor: string | null = null;
  do {
    const { status, body }: { status: number; body: JsonObject } = await search(
      `${query}&limit=50${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(status).toBe(200);
    results.push(...body.results);
    cursor = body.next_cursor;
  } while (cursor);
  return results;
}

describe("merchant.opening on each hit", () => {
  it("reads a Tuesday at 10:00 in Paris: open, today's hours, closing at the lunch break", async () => {
    expect(await openingOf(eve, "2026-12-08T10:00:00+01:00")).toEqual({
      open_now: true,
      today: "07:00-13:00, 15:00-19:30",
      next_change: "2026-12-08T13:00:00+01:00",
    });
    // The same instant in UTC, and with the offset's "+" left unencoded (a query string reads it as a space).
    expect(await openingOf(eve, "2026-12-08T09:00:00Z")).toEqual(await openingOf(eve, "2026-12-08T10:00:00+01:00"));
    const { body } = await search(`q=${encodeURIComponent(eve.name)}&limit=50&at=2026-12-08T10:00:00+01:00`);
    const hit = body.results.find((result: JsonObject) => result.merchant.ab_id === eve.abId);
    expect(hit.merchant.opening.next_change).toBe("2026-12-08T13:00:00+01:00");
  });

  it("reads a Sunday: the morning, then closed until Tuesday (Monday closed)", async () => {
    expect(await openingOf(eve, "2026-12-06T11:00:00+01:00")).toEqual({
      open_now: true,
      today: "07:00-12:30",
      next_change: "2026-12-06T12:30:00+01:00",
    });
    expect(await openingOf(eve, "2026-12-06T13:00:00+01:00")).toEqual({
      open_now: false,
      today: "07:00-12:30",
      next_change: "2026-12-08T07:00:00+01:00",
    });
  });

  it("does not guess on a public holiday, and follows each merchant's exceptions", async () => {
    expect(await openingOf(eve, "2026-12-25T10:00:00+01:00")).toEqual({
      open_now: null,
      today: "public holiday (Noël): hours not declared",
      next_change: "2026-12-26T07:00:00+01:00",
    });
    expect(await openingOf(noel, "2026-12-25T10:00:00+01:00")).toEqual({
      open_now: true,
      today: "08:00-12:00 (exception)",
      next_change: "2026-12-25T12:00:00+01:00",
    });
    expect(await openingOf(eve, "2026-12-24T13:00:00+01:00")).toEqual({
      open_now: false,
      today: "07:00-12:00 (exception: veille de Noël)",
      next_change: "2026-12-26T07:00:00+01:00",
    });
    // Closed from Monday 28 to Thursday 31 December; Friday 1 January is a public holiday: Saturday 2.
    expect(await openingOf(noel, "2026-12-29T10:00:00+01:00")).toEqual({
      open_now: false,
      today: "closed (exception: congés)",
      next_change: "2027-01-02T07:00:00+01:00",
    });
  });

  it("is null throughout for a merchant without hours", async () => {
    const db = (await import("../../src/store/db.ts")).openDatabase(path.join(server.dataDir, "abeille.db"), {
      readonly: true,
    });
    const without = db.$client
      .prepare(
        "SELECT ab_id AS abId, business_name AS name FROM merchants WHERE hours IS NULL AND status = 'ACTIVE' AND closure IS NULL LIMIT 1",
      )
      .get() as { abId: string; name: string } | undefined;
    db.$client.close();
    if (!without) throw new Error("every demo merchant has hours");
    expect(await openingOf(without, "2026-12-08T10:00:00+01:00")).toEqual({
      open_now: null,
      today: null,
      next_change: null,
    });
  });
});

describe("the opening filters", () => {
  it("open_now at Noël keeps exactly the hits open then, page after page, and counts them", async () => {
    const noon = "2026-12-25T10:00:00+01:00";
    const all = await everyPage(`q=boulangerie&${at(noon)}`);
    const openThen = all.filter((result) => result.merchant.opening.open_now === true).map((r) => r.merchant.ab_id);
    expect(openThen).toContain(noel.abId);
    expect(openThen).not.toContain(eve.abId);
    const filtered = await everyPage(`q=boulangerie&open_now=true&${at(noon)}`);
    expect(filtered.map((result) => result.merchant.ab_id).sort()).toEqual([...openThen].sort());
    const { body } = await search(`q=boulangerie&open_now=true&${at(noon)}&limit=1`);
    expect(body.estimated_total).toBe(openThen.length);
    // open_at asks the same of its instant, whatever instant the hits' opening is read at.
    const atNoon = await everyPage(
      `q=boulangerie&open_at=${encodeURIComponent(noon)}&${at("2026-12-08T10:00:00+01:00")}`,
    );
    expect(atNoon.map((result) => result.merchant.ab_id).sort()).toEqual([...openThen].sort());
    expect(atNoon.every((result) => result.merchant.opening.today !== null)).toBe(true);
  });

  it("says how to drop the filter when nothing is open", async () => {
    const { body } = await search(`q=boulangerie&open_now=true&${at("2026-12-25T03:00:00+01:00")}`);
    expect(body.count).toBe(0);
    const drop = (body.recovery as JsonObject[]).find((action) => action.rel === "drop_opening_filter");
    expect(drop).toBeDefined();
    const href = new URL(drop?.href);
    expect(href.searchParams.get("open_now")).toBeNull();
    expect(href.searchParams.get("at")).toBe("2026-12-25T03:00:00+01:00");
  });

  it.each([
    ["at=tomorrow", "at"],
    ["at=2026-12-25T10:00:00", "at"],
    ["open_at=2026-12-25", "open_at"],
    ["open_now=maybe", "open_now"],
  ])("refuses %s with 400 VALIDATION_ERROR on %s", async (query, field) => {
    const { status, body } = await search(`q=boulangerie&${query}`);
    expect(status).toBe(400);
    expectErrorEnvelope(body, "VALIDATION_ERROR");
    expect(body.data.issues.map((issue: JsonObject) => issue.path)).toEqual([field]);
  });
});

/** Lyon's centre, as the commune reference places it (what near=Lyon searches around). */
const lyon = createPlaceFinder().find("Lyon").place;
if (!lyon) throw new Error("Lyon is not in the commune reference");
const { lat, lng } = lyon;

describe("a point without a radius, and near", () => {
  it("cuts at no distance and ranks nearer merchants first among equally relevant ones", async () => {
    const everywhere = await everyPage("q=10.71C");
    const placed = everywhere.length;
    const around = await everyPage(`q=10.71C&lat=${lat}&lng=${lng}`);
    const within = await everyPage(`q=10.71C&lat=${lat}&lng=${lng}&radius=10`);
    // Every bakery placed comes back (those without coordinates are left out), not the 10 km around.
    expect(around.length).toBeGreaterThan(within.length);
    expect(around.length).toBeLessThanOrEqual(placed);
    const distances = around.map((result) => result.merchant.distance_km as number);
    expect(distances.every((distance) => typeof distance === "number")).toBe(true);
    // A NAF code matches every bakery alike: nearest first, across pages.
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    for (const result of within) expect(result.merchant.distance_km).toBeLessThanOrEqual(10);
  });

  it("near= takes a town or a postal code, and says the place it read", async () => {
    const byName = await search("q=boulangerie&near=Lyon&limit=50");
    expect(byName.status).toBe(200);
    expect(byName.body.place).toEqual({ name: "Lyon", department: "69", postal_code: "69001", lat, lng });
    const byPoint = await search(`q=boulangerie&lat=${lat}&lng=${lng}&limit=50`);
    expect(ids(byName.body)).toEqual(ids(byPoint.body));
    const byCode = await search("q=boulangerie&near=69003&limit=50");
    expect(byCode.body.place).toMatchObject({ name: "Lyon", postal_code: "69003" });
    expect(ids(byCode.body)).toEqual(ids(byPoint.body));
    // Among homonyms the most populated, or the department's given in parentheses.
    expect((await search("q=boulangerie&near=Saint-Denis")).body.place).toMatchObject({ department: "93" });
    const homonym = await search(`q=boulangerie&near=${encodeURIComponent("Saint-Denis (30)")}`);
    expect(homonym.body.place).toMatchObject({ name: "Saint-Denis", department: "30" });
    const within = await search("q=boulangerie&near=Lyon&radius=5&limit=50");
    for (const result of within.body.results) expect(result.merchant.distance_km).toBeLessThanOrEqual(5);
  });

  it("refuses an unknown place with the closest names, and near beside lat/lng", async () => {
    const { status, body } = await search("q=boulangerie&near=Lyonn");
    expect(status).toBe(400);
    expectErrorEnvelope(body, "VALIDATION_ERROR");
    const [issue] = body.data.issues;
    expect(issue.path).toBe("near");
    expect(issue.message).toMatch(/^no French commune is named "Lyonn"; did you mean "Lyon"/);
    expect(issue.suggestions[0]).toBe("Lyon");
    const code = await search("q=boulangerie&near=99999");
    expect(code.status).toBe(400);
    expect(code.body.data.issues[0].message).toBe(
      "no French commune has the postal code 99999: give a town's name or a 5-digit postal code, or lat and lng",
    );
    const unplaced = await search(`q=boulangerie&near=${encodeURIComponent("Saint-Denis (974)")}`);
    expect(unplaced.body.data.issues[0].message).toBe(
      "the commune reference has no coordinates for Saint-Denis (974): give lat and lng",
    );
    const both = await search(`q=boulangerie&near=Lyon&lat=${lat}&lng=${lng}`);
    expect(both.status).toBe(400);
    expect(both.body.data.issues.map((entry: JsonObject) => entry.path)).toEqual(["near"]);
  });
});

describe("the same through MCP and A2A", () => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = new Client({ name: "abeille-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`)));
  });
  afterAll(async () => {
    await mcp?.close();
  });

  const tool = async (args: Record<string, unknown>) =>
    (await mcp.callTool({ name: "search_merchants", arguments: args })) as unknown as {
      isError?: boolean;
      structuredContent: JsonObject;
    };
  // The self links name each call's own query string (the tool's, in the schema's order).
  const strip = ({ _meta: _m, _links: _l, ...value }: JsonObject) => value;

  it("search_merchants takes near, open_now, open_at and at, and answers what the REST route answers", async () => {
    const args = { q: "boulangerie", near: "Lyon", open_now: true, at: "2026-12-25T10:00:00+01:00", limit: 20 };
    const answer = await tool(args);
    expect(answer.isError).toBeUndefined();
    const rest = await search(`q=boulangerie&near=Lyon&open_now=true&${at(args.at)}&limit=20`);
    expect(strip(answer.structuredContent)).toEqual(strip(rest.body));
    expect(answer.structuredContent.place.name).toBe("Lyon");
    for (const result of answer.structuredContent.results) expect(result.merchant.opening.open_now).toBe(true);
    expect(answer.structuredContent._links.self).toBe(
      `${TEST_BASE_URL}/api/registry/search?q=boulangerie&near=Lyon&limit=20&open_now=true&at=2026-12-25T10%3A00%3A00%2B01%3A00`,
    );
  });

  it("ranks by distance without a radius through MCP too", async () => {
    const answer = await tool({ q: "10.71C", lat, lng, limit: 50 });
    const rest = await search(`q=10.71C&lat=${lat}&lng=${lng}&limit=50`);
    expect(strip(answer.structuredContent)).toEqual(strip(rest.body));
    const distances = answer.structuredContent.results.map((result: JsonObject) => result.merchant.distance_km);
    expect(distances).toEqual([...distances].sort((a: number, b: number) => a - b));
  });

  it("refuses an unknown place and a bad instant as the REST route does, naming the argument", async () => {
    const place = await tool({ q: "boulangerie", near: "Lyonn" });
    expect(place.isError).toBe(true);
    expect(place.structuredContent.error.code).toBe("VALIDATION_ERROR");
    expect(place.structuredContent.data.issues[0]).toMatchObject({
      path: "near",
      suggestions: expect.arrayContaining(["Lyon"]),
    });
    const instant = await tool({ q: "boulangerie", open_at: "noon" });
    expect(instant.isError).toBe(true);
    expect(instant.structuredContent.data.issues.map((issue: JsonObject) => issue.path)).toEqual(["open_at"]);
  });

  it("the A2A skill takes the same arguments", async () => {
    const fetchImpl: typeof fetch = (input, init) =>
      fetch(String(input instanceof Request ? input.url : input).replace(TEST_BASE_URL, server.url), init);
    const a2a = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    ).createFromUrl(TEST_BASE_URL);
    const args = { q: "boulangerie", near: "69003", open_at: "2026-12-25T10:00:00+01:00", limit: 10 };
    const message: Message = {
      messageId: crypto.randomUUID(),
      contextId: "",
      taskId: "",
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: "data", value: { skill: "search_merchants", arguments: args } },
          metadata: undefined,
          filename: "",
          mediaType: "application/json",
        },
      ],
      metadata: {},
      extensions: [],
      referenceTaskIds: [],
    };
    const result = await a2a.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined });
    if (!("parts" in result)) throw new Error("expected an agent message");
    const part = result.parts.find((candidate) => candidate.content?.$case === "data");
    const envelope = part?.content?.$case === "data" ? (part.content.value as JsonObject) : null;
    const rest = await search(`q=boulangerie&near=69003&open_at=${encodeURIComponent(args.open_at)}&limit=10`);
    expect(envelope?.place).toEqual(rest.body.place);
    expect(envelope?.results.map((hit: JsonObject) => hit.merchant.ab_id)).toEqual(ids(rest.body));
  });
});
