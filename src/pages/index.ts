import { methodNotAllowed } from "../http/route.ts";
import { operation } from "../openapi/operations.ts";
import { renderHomePage } from "../publish/front-door.ts";
import { documentResponse, pageRoute } from "../publish/http.ts";
import { searchForPeople } from "../publish/people-search.ts";
import { searchDeps } from "../wiring.ts";

/** The front door (HTML, French): what Abeille is, and the search by trade and town with its results. */
export const GET = pageRoute(operation("getHome"), async ({ app, query }) => {
  const asked = query();
  const search = asked.metier || asked.ville ? await searchForPeople(searchDeps(app), asked) : null;
  return documentResponse(renderHomePage(app.config.baseUrl, search), {
    cacheControl: search ? "no-cache" : "public, max-age=300",
  });
});

export const ALL = methodNotAllowed(["GET"]);
