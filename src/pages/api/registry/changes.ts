import { readChanges } from "../../../domain/registry/read-changes.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, parseQuery, route } from "../../../http/route.ts";
import { changesQuerySchema } from "../../../schemas/registry.ts";

export const GET = route("search", ({ app, url, context }) => {
  const query = parseQuery(changesQuerySchema, url.searchParams);
  return ok(context, { topLevel: readChanges({ changes: app.changeFeed }, query) });
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
