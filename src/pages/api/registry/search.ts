import { searchRegistry } from "../../../domain/registry/search-registry.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, parseQuery, route } from "../../../http/route.ts";
import { searchQuerySchema } from "../../../schemas/registry.ts";
import { searchDeps } from "../../../wiring.ts";

export const GET = route("search", async ({ app, url, context }) => {
  const query = parseQuery(searchQuerySchema, url.searchParams);
  const answer = await searchRegistry(searchDeps(app), query);
  return ok(context, { topLevel: answer });
});

export const ALL = methodNotAllowed(["GET"]);
