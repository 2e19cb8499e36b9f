import { ok } from "../../http/respond.ts";
import { methodNotAllowed, route } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";

/**
 * Liveness and readiness for operators and load balancers: answers even while agent access is
 * suspended, with the outbox's backlog and the search engine's state and lag (each read at most
 * once a second), and each shared part: the store (and whether this instance hears its revision
 * notices) and where limits are counted, for monitoring.
 */
export const GET = route(operation("getHealth"), async ({ app, context }) => {
  await app.probeDatabase();
  return ok(
    context,
    {
      data: {
        status: "ok",
        outbox: await app.outboxHealth(),
        search: await app.searchHealth(),
        store: app.storeHealth(),
        limits: app.limitsHealth(),
      },
    },
    { headers: { "cache-control": "no-store" } },
  );
});

export const ALL = methodNotAllowed(["GET"]);
