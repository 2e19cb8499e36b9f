import { searchRegistry } from "../../../domain/registry/search-registry.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { searchDeps } from "../../../wiring.ts";

export const GET = route(operation("searchRegistry"), async ({ app, context, query }) => {
  const parsed = query();
  const answer = await searchRegistry(searchDeps(app), parsed);
  return ok(context, { topLevel: answer });
});

export const ALL = methodNotAllowed(["GET"]);
