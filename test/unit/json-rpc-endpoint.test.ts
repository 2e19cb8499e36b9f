import { describe, expect, it } from "vitest";
import { isPublicHost, rebindingProblem } from "../../src/http/json-rpc-endpoint.ts";

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

  it("accepts BASE_URL's origin, loopback origins and listed ones from any host; refuses others, 'null' and garbage", () => {
    for (const origin of ["https://abeille.example.fr", "http://localhost:6274", "http://127.0.0.1:3000"]) {
      expect(rebindingProblem(config(), headers({ host: "localhost:4321", origin })), origin).toBeNull();
    }
    expect(
      rebindingProblem(
        config([], ["https://agent.example"]),
        headers({ host: "localhost:4321", origin: "https://agent.example" }),
      ),
    ).toBeNull();
    for (const origin of ["http://abeille.example.fr", "https://evil.example", "null", "::", "file:///tmp/page.html"]) {
      expect(rebindingProblem(config(), headers({ host: "localhost:4321", origin })), origin).toBe(
        `the Origin header (${origin}) is not an origin allowed to call this endpoint`,
      );
    }
    expect(
      rebindingProblem(config([], ["*"]), headers({ host: "localhost", origin: "https://evil.example" })),
    ).toBeNull();
  });

  it("on a public BASE_URL, lets any web origin call the public host itself", () => {
    for (const origin of ["https://agent.example", "http://localhost:5173", "https://abeille.example.fr"]) {
      expect(rebindingProblem(config(), headers({ host: "abeille.example.fr", origin })), origin).toBeNull();
    }
    // Not a web page's origin: still refused.
    for (const origin of ["null", "file:///tmp/page.html", "chrome-extension://abcdef", "garbage"]) {
      expect(rebindingProblem(config(), headers({ host: "abeille.example.fr", origin })), origin).not.toBeNull();
    }
  });

  it("keeps the loopback protection: a foreign origin through a loopback, listed or missing Host is refused", () => {
    const foreign = { origin: "https://evil.example" };
    for (const host of ["localhost:4321", "127.0.0.1", "[::1]:4321"]) {
      expect(rebindingProblem(config(), headers({ host, ...foreign })), host).not.toBeNull();
    }
    expect(
      rebindingProblem(config(["mcp.example.fr"]), headers({ host: "mcp.example.fr", ...foreign })),
    ).not.toBeNull();
    expect(rebindingProblem(config(), headers(foreign))).not.toBeNull();
  });

  it("refuses a foreign origin on a BASE_URL that is not public, even through its own host", () => {
    for (const baseUrl of [
      "http://localhost:4321",
      "http://127.0.0.1:4321",
      "http://192.168.1.10:4321",
      "http://10.0.0.2",
      "http://172.20.0.5",
      "http://[fd00::5]:4321",
      "http://abeille:4321",
      "http://abeille.local",
      "http://abeille.internal",
    ]) {
      const host = new URL(baseUrl).host;
      const problem = rebindingProblem(
        { baseUrl, agentEndpoints: { allowedHosts: [], allowedOrigins: [] } },
        headers({ host, origin: "https://evil.example" }),
      );
      expect({ baseUrl, refused: problem !== null }).toEqual({ baseUrl, refused: true });
    }
  });
});

describe("which BASE_URL hosts are public", () => {
  it("tells public names and addresses from loopback, private and single-label ones", () => {
    for (const host of ["abeille.example.fr", "abeille.test", "93.184.216.34", "[2001:db8::1]", "172.32.0.1"]) {
      expect(isPublicHost(host), host).toBe(true);
    }
    for (const host of [
      "localhost",
      "127.0.0.1",
      "[::1]",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.0.10",
      "169.254.1.1",
      "0.0.0.0",
      "[fe80::1]",
      "[fc00::1]",
      "intranet",
      "nas.local",
      "api.internal",
      "box.home.arpa",
    ]) {
      expect(isPublicHost(host), host).toBe(false);
    }
  });
});
