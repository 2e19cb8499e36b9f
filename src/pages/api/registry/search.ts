import { searchRegistry } from "../../../domain/registry/search-registry.ts";
import { ok } from "../../../http/respond.ts";
import { methodNotAllowed, route } from "../../../http/route.ts";
import { operation } from "../../../openapi/operations.ts";
import { searchDeps } from "../../../wiring.ts";

export const GET = route(operation("searchRegistry"), async ({ app, context, query }) => {
  const parsed = query();
  const answer = await searchRegistry(searchDeps(app), parsed);
  // The next page and, on an empty answer, the recovery actions are also the envelope's links and actions.
  const next = answer.next_cursor ? new URL(context.selfUrl) : null;
  next?.searchParams.set("cursor", answer.next_cursor ?? "");
  return ok(context, {
    topLevel: answer,
    ...(answer.recovery ? { actions: answer.recovery } : {}),
    ...(next ? { links: { next: next.toString() } } : {}),
  });
});

export const ALL = methodNotAllowed(["GET"]);
