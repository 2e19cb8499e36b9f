import { reply } from "../http/reply.ts";
import { methodNotAllowed, route } from "../http/route.ts";
import { operation } from "../openapi/operations.ts";
import { robotsTxt } from "../publish/sitemap.ts";

/** robots.txt: everything published is open to crawlers; the sitemap lists it. */
export const GET = route(operation("getRobotsTxt"), ({ app }) =>
  reply(200, robotsTxt(app.config.baseUrl), {
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "public, max-age=3600",
  }),
);

export const ALL = methodNotAllowed(["GET"]);
