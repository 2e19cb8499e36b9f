import { methodNotAllowed } from "../http/route.ts";
import { operation } from "../openapi/operations.ts";
import { renderLegalPage } from "../publish/front-door.ts";
import { documentResponse, pageRoute } from "../publish/http.ts";

/** The legal notice (HTML, French): publisher, director of publication, host. */
export const GET = pageRoute(operation("getLegalNotice"), ({ app }) => documentResponse(renderLegalPage(app.config)));

export const ALL = methodNotAllowed(["GET"]);
