/**
 * A BASE_URL in http behind a proxy that serves https warns once, at start when TRUST_PROXY says a
 * proxy is in front, or at the first request a proxy marked https (X-Forwarded-Proto, Forwarded):
 * the merchant space's cookies would lose Secure and the __Host- prefix. The warning names the
 * signal, never the request's addresses.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

const WARNING =
  "BASE_URL is http:// while a proxy in front serves https: set BASE_URL to the public https:// address, or the merchant space's cookies lose Secure and the __Host- prefix and ProConnect's redirect URI is http";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The log lines written while `work` runs. */
async function logsOf(work: () => Promise<void>): Promise<string[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return written
    .join("")
    .split("\n")
    .filter((line) => line.includes(WARNING));
}

describe("an http BASE_URL behind a proxy", () => {
  it("warns at start when TRUST_PROXY says a proxy is in front, and not again at a request", async () => {
    const lines = await logsOf(async () => {
      server = await startTestServer({ count: 10, env: { TRUST_PROXY: "1" } });
      await server.get("/pro", { headers: { "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.9" } });
    });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ level: "warn", message: WARNING, signal: "TRUST_PROXY" });
  });

  it("warns once at the first request a proxy marked https, naming the header and not the address", async () => {
    const quiet = await logsOf(async () => {
      server = await startTestServer({ count: 10, env: { TRUST_PROXY: "0" } });
      await server.get("/pro");
    });
    expect(quiet).toEqual([]);
    const lines = await logsOf(async () => {
      await server?.get("/pro", { headers: { "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.9" } });
      await server?.get("/pro", { headers: { forwarded: "for=203.0.113.9;proto=https" } });
      await server?.get("/pro", { headers: { "x-forwarded-proto": "https" } });
    });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({
      level: "warn",
      message: WARNING,
      signal: "x-forwarded-proto",
    });
    expect(lines[0]).not.toContain("203.0.113.9");
  });

  it("says nothing on an https BASE_URL", async () => {
    const lines = await logsOf(async () => {
      server = await startTestServer({ count: 10, env: { BASE_URL: "https://abeille.example", TRUST_PROXY: "1" } });
      await server.get("/pro", { headers: { "x-forwarded-proto": "https" } });
    });
    expect(lines).toEqual([]);
  });
});
