import { readChanges } from "../../../domain/registry/read-changes.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";

export const GET = route(operation("readChanges"), async ({ app, context, query }) => {
  const parsed = query();
  return ok(context, { topLevel: await readChanges({ changes: app.changeFeed }, parsed) });
});

export const HEAD = GET;
export const ALL = methodNotAllowed(["GET"]);
