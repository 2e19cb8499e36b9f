import { describe, expect, it } from "vitest";
import { rebindingProblem } from "../../src/http/json-rpc-endpoint.ts";

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
const config = (allowedHosts: string[] = [], allowedOrigins: string[] = []) => ({
  baseUrl: "https://abeille.example.fr",
  agentEndpoints: { allowedHosts, allowedOrigins },
});

describe("DNS-rebinding protection of the agent endpoints", () => {
  it("accepts BASE_URL's host, loopback hosts with any port, and no Host at all", () => {
    for (const host of ["abeille.example.fr", "ABEILLE.example.fr:443", "localhost:4321", "127.0.0.1", "[::1]:8080"]) {
      expect(rebindingProblem(config(), headers({ host })), host).toBeNull();
    }
    expect(rebindingProblem(config(), headers({}))).toBeNull();
  });

  it("refuses any other host unless listed, and '*' turns the check off", () => {
    expect(rebindingProblem(config(), headers({ host: "evil.example" }))).toBe(
      "the Host header (evil.example) names no host this service answers for",
    );
    expect(rebindingProblem(config(), headers({ host: "127.0.0.1.evil.example" }))).not.toBeNull();
    expect(rebindingProblem(config(["mcp.example.fr"]), headers({ host: "mcp.example.fr:8443" }))).toBeNull();
    expect(rebindingProblem(config(["*"]), headers({ host: "evil.example" }))).toBeNull();
  });

  it("accepts BASE_URL's origin, loopback origins and listed ones; refuses others, 'null' and garbage", () => {
    for (const origin of ["https://abeille.example.fr", "http://localhost:6274", "http://127.0.0.1:3000"]) {
      expect(rebindingProblem(config(), headers({ origin })), origin).toBeNull();
    }
    expect(
      rebindingProblem(config([], ["https://agent.example"]), headers({ origin: "https://agent.example" })),
    ).toBeNull();
    for (const origin of ["http://abeille.example.fr", "https://evil.example", "null", "::"]) {
      expect(rebindingProblem(config(), headers({ origin })), origin).toBe(
        `the Origin header (${origin}) is not an origin allowed to call this endpoint`,
      );
    }
    expect(rebindingProblem(config([], ["*"]), headers({ origin: "https://evil.example" }))).toBeNull();
  });
});
