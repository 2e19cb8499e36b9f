import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope, expectMeta } from "../helpers/envelope.ts";
import { type JsonObject, startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 60, env: { RATE_LIMIT_ANON_HOURLY: "100000" } });
});
afterAll(async () => {
  await server?.close();
});

const post = async (body: unknown, headers: Record<string, string> = {}) => {
  const response = await server.get("/api/contact/platform", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as JsonObject };
};

const valid = (overrides: Record<string, unknown> = {}) => ({
  type: "merchant_inquiry",
  name: "Jeanne Moreau",
  email: "jeanne.moreau@example.fr",
  message: "Je souhaite inscrire ma boulangerie au registre.",
  ...overrides,
});

describe("POST /api/contact/platform", () => {
  it("answers 201 with contact_id and status received, and queues a note to the platform team", async () => {
    for (const type of ["merchant_inquiry", "partnership", "support"]) {
      const { status, body } = await post(
        valid({ type, phone: "+33 1 23 45 67 89", company: "Boulangerie Moreau SARL" }),
      );
      expect(status).toBe(201);
      expect(body.success).toBe(true);
      expectMeta(body);
      expect(body.contact_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.status).toBe("received");
      const db = new Database(path.join(server.dataDir, "abeille.db"), { readonly: true });
      const row = db.prepare("SELECT kind, status FROM outbox WHERE subject_id = ?").get(body.contact_id) as {
        kind: string;
        status: string;
      };
      const stored = db.prepare("SELECT type, status FROM platform_contacts WHERE contact_id = ?").get(body.contact_id);
      db.close();
      expect(row.kind).toBe("platform_contact");
      expect(stored).toEqual({ type, status: expect.any(String) });
    }
  });

  it("accepts the limits: name 100, phone 20, company 200, message 1000 characters", async () => {
    const { status } = await post(
      valid({
        name: "n".repeat(100),
        phone: "+33 6 12 34 56 78 90",
        company: "c".repeat(200),
        message: "m".repeat(1000),
      }),
    );
    expect(status).toBe(201);
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ["type missing", { type: undefined }, "type"],
    ["type unknown", { type: "complaint" }, "type"],
    ["name missing", { name: undefined }, "name"],
    ["name empty", { name: "" }, "name"],
    ["name too long", { name: "n".repeat(101) }, "name"],
    ["email missing", { email: undefined }, "email"],
    ["email invalid", { email: "jeanne" }, "email"],
    ["phone too long", { phone: "+33 6 12 34 56 78 90 1" }, "phone"],
    ["phone not a phone", { phone: "joignable" }, "phone"],
    ["company too long", { company: "c".repeat(201) }, "company"],
    ["message missing", { message: undefined }, "message"],
    ["message empty", { message: "" }, "message"],
    ["message too long", { message: "m".repeat(1001) }, "message"],
    ["unknown field", { subject: "hello" }, "subject"],
  ];
  for (const [name, overrides, field] of cases) {
    it(`answers 400 VALIDATION_ERROR when ${name}`, async () => {
      const { status, body } = await post(valid(overrides));
      expect(status).toBe(400);
      expectErrorEnvelope(body, "VALIDATION_ERROR");
      expect(body.data.issues.map((issue: JsonObject) => issue.path)).toContain(field);
    });
  }

  it("answers 400 for malformed JSON and 413 for a body over 64 KiB", async () => {
    const malformed = await post("{");
    expect(malformed.status).toBe(400);
    expectErrorEnvelope(malformed.body, "VALIDATION_ERROR");
    const large = await post(valid({ message: "m".repeat(70_000) }));
    expect(large.status).toBe(413);
    expectErrorEnvelope(large.body, "PAYLOAD_TOO_LARGE");
  });

  it("answers 405 for GET", async () => {
    const response = await server.get("/api/contact/platform");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});
