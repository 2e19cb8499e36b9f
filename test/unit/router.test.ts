import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadRouter } from "../../src/http/router.ts";

const scratch = mkdtempSync(path.join(os.tmpdir(), "abeille-router-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A pages folder of tiny endpoint modules, each export naming itself. */
function pages(files: Record<string, string[]>): string {
  const root = mkdtempSync(path.join(scratch, "pages-"));
  for (const [file, methods] of Object.entries(files)) {
    const full = path.join(root, file);
    mkdirSync(path.dirname(full), { recursive: true });
    const exports = methods.map(
      (method) =>
        `export const ${method} = Object.assign(() => null, { handle: async () => ({ status: 200, headers: {}, body: ${JSON.stringify(`${file} ${method}`)} }) });`,
    );
    writeFileSync(full, exports.join("\n"));
  }
  return root;
}

async function answer(router: Awaited<ReturnType<typeof loadRouter>>, method: string, pathname: string) {
  const matched = router.match(method, pathname);
  if (!matched) return null;
  const reply = await matched.endpoint.handle({
    request: {
      method,
      url: `http://x${pathname}`,
      headers: { get: () => null },
      readBody: async () => "",
      toWebRequest: () => new Request("http://x"),
    },
    url: new URL(pathname, "http://x"),
    params: matched.params,
    requestId: "r",
    clientAddress: "127.0.0.1",
  });
  return { body: reply.body, params: matched.params };
}

describe("the endpoint router (Astro's file conventions)", () => {
  it("prefers static segments to parameters and parameters to rests, whatever the file order", async () => {
    const router = await loadRouter(
      pages({
        "api/[...path].ts": ["ALL"],
        "api/leads/[lead_id].ts": ["GET"],
        "api/leads/[lead_id]/messages.ts": ["POST"],
        "api/leads/export.ts": ["GET"],
      }),
    );
    expect(router.patterns).toEqual([
      "/api/leads/export",
      "/api/leads/[lead_id]/messages",
      "/api/leads/[lead_id]",
      "/api/[...path]",
    ]);
    expect(await answer(router, "GET", "/api/leads/export")).toEqual({ body: "api/leads/export.ts GET", params: {} });
    expect(await answer(router, "GET", "/api/leads/ld_1")).toEqual({
      body: "api/leads/[lead_id].ts GET",
      params: { lead_id: "ld_1" },
    });
    expect(await answer(router, "POST", "/api/leads/ld_1/messages/")).toEqual({
      body: "api/leads/[lead_id]/messages.ts POST",
      params: { lead_id: "ld_1" },
    });
    expect(await answer(router, "GET", "/api/nope/deeper")).toEqual({
      body: "api/[...path].ts ALL",
      params: { path: "nope/deeper" },
    });
    expect(await answer(router, "GET", "/api")).toEqual({ body: "api/[...path].ts ALL", params: { path: undefined } });
  });

  it("decodes parameters, serves HEAD with GET, falls back to ALL, and leaves what no file serves", async () => {
    const router = await loadRouter(
      pages({
        "m/[ab_id]/index.ts": ["GET", "ALL"],
        "m/[ab_id]/ai.md.ts": ["GET"],
        "_helper.ts": ["GET"],
        "_private/thing.ts": ["GET"],
      }),
    );
    expect(await answer(router, "GET", "/m/ab%5F12345678")).toEqual({
      body: "m/[ab_id]/index.ts GET",
      params: { ab_id: "ab_12345678" },
    });
    expect((await answer(router, "HEAD", "/m/ab_12345678/ai.md"))?.body).toBe("m/[ab_id]/ai.md.ts GET");
    expect((await answer(router, "DELETE", "/m/ab_12345678"))?.body).toBe("m/[ab_id]/index.ts ALL");
    expect(router.match("DELETE", "/m/ab_12345678/ai.md")).toBeNull();
    expect(router.match("GET", "/_helper")).toBeNull();
    expect(router.match("GET", "/_private/thing")).toBeNull();
    expect(router.match("GET", "/")).toBeNull();
  });

  it("routes every endpoint file of the service through the route wrapper, none left to Astro", async () => {
    const router = await loadRouter(fileURLToPath(new URL("../../src/pages", import.meta.url)));
    expect(router.patterns).toContain("/api/registry/resolve/[ab_id]");
    expect(router.patterns).toContain("/.well-known/ab-public-keys.json");
    for (const probe of ["/api/health", "/api/registry/search", "/m/ab_12345678", "/llms.txt", "/openapi.json"]) {
      expect(router.match("GET", probe), probe).not.toBeNull();
    }
    expect(router.match("GET", "/no-such-page")).toBeNull();
  });
});
