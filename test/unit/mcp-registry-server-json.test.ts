/**
 * server.json at the project root, for the official MCP Registry: valid against the registry's
 * schema 2025-12-11 (a copy kept in test/fixtures/schemas), and the entry the deployment it names
 * serves as its MCP server card (same name, version, description, remote).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { mcpRegistryServerJson, mcpServerCard, REGISTRY_SERVER_SCHEMA } from "../../src/mcp/discovery.ts";

// ajv-formats is CommonJS: its default export arrives as the module namespace under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => void;

const root = path.resolve(import.meta.dirname, "../..");
const readJson = (relative: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(root, relative), "utf8")) as Record<string, unknown>;

const schema = readJson("test/fixtures/schemas/mcp-registry-server.2025-12-11.schema.json");
// The schema is draft-07 with OpenAPI's `example` keyword, which strict mode would refuse.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);

interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  description: string;
  remotes: { type: string; url: string }[];
}
const serverJson = readJson("server.json") as unknown as ServerJson;

describe("server.json for the MCP Registry", () => {
  it("is valid against the registry's schema 2025-12-11, which the kept copy is", () => {
    expect(schema.$id).toBe(REGISTRY_SERVER_SCHEMA);
    expect(validate(serverJson), JSON.stringify(validate.errors)).toBe(true);
    expect(serverJson.$schema).toBe(REGISTRY_SERVER_SCHEMA);
  });

  it("has a reverse-DNS name, a description of 100 characters at most, a version and a streamable-http remote", () => {
    expect(serverJson.name).toBe("fr.example.abeille/abeille");
    expect(serverJson.description.length).toBeLessThanOrEqual(100);
    expect(serverJson.version).toBe("1.0.0");
    expect(serverJson.remotes).toHaveLength(1);
    expect(serverJson.remotes[0]).toMatchObject({ type: "streamable-http", url: "https://abeille.example.fr/api/mcp" });
  });

  it("is what `npm run server-json` writes for its deployment, and agrees with the card that deployment serves", () => {
    const baseUrl = new URL(serverJson.remotes[0]?.url ?? "").origin;
    expect(serverJson).toEqual(mcpRegistryServerJson(baseUrl));
    const card = mcpServerCard(baseUrl);
    expect(serverJson.name).toBe(card.name);
    expect(serverJson.version).toBe(card.version);
    expect(serverJson.description).toBe(card.description);
  });

  it("refuses what the registry refuses: a name without its slash, a description over 100 characters", () => {
    expect(validate({ ...serverJson, name: "abeille" })).toBe(false);
    expect(validate({ ...serverJson, description: "x".repeat(101) })).toBe(false);
  });
});
