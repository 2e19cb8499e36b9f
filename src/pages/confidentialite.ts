import { methodNotAllowed } from "../http/route.ts";
import { operation } from "../openapi/operations.ts";
import { renderPrivacyPage } from "../publish/front-door.ts";
import { documentResponse, pageRoute } from "../publish/http.ts";

/** The privacy notice every form collecting personal data links to (HTML, French). */
export const GET = pageRoute(operation("getPrivacyNotice"), ({ app }) =>
  documentResponse(renderPrivacyPage(app.config)),
);

export const ALL = methodNotAllowed(["GET"]);
