/**
 * The server a test starts in its own process (test/helpers/test-server.ts) logs warnings and
 * errors, not a line per request: a suite of a few hundred requests does not flood the output.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ count: 30 });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe("a test's own server", () => {
  it("writes no routine log line while it answers searches and takes a lead", async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const abId = server.roster.cases.active_contactable?.[0];
      expect((await server.get("/api/registry/search?q=boulangerie")).status).toBe(200);
      const lead = await server.get("/api/contact/brick", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          ab_id: abId,
          contact_name: "Jeanne Martin",
          contact_email: "jeanne@example.org",
          lead_type: "quote",
          message: "Devis pour une fuite",
        }),
      });
      expect(lead.status).toBe(201);
    } finally {
      spy.mockRestore();
    }
    expect(written.filter((line) => line.includes('"level":"info"'))).toEqual([]);
  });
});
