import { reply } from "../http/reply.ts";
import { methodNotAllowed, route } from "../http/route.ts";
import { operation } from "../openapi/operations.ts";
import { publishedPages, SITEMAP_TYPE, sitemapXml } from "../publish/sitemap.ts";

/** The sitemap of every published merchant page and ai.md, each with its lastmod (an index past 50,000 URLs). */
export const GET = route(operation("getSitemap"), async ({ app }) =>
  reply(200, sitemapXml(app.config.baseUrl, await publishedPages(app.publishSource, app.now())), {
    "content-type": SITEMAP_TYPE,
    "cache-control": "public, max-age=300",
  }),
);

export const ALL = methodNotAllowed(["GET"]);
