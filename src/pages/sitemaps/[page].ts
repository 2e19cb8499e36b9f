import { ServiceError } from "../../errors/service-error.ts";
import { reply } from "../../http/reply.ts";
import { methodNotAllowed, route } from "../../http/route.ts";
import { operation } from "../../openapi/operations.ts";
import { publishedPages, SITEMAP_TYPE, sitemapPart } from "../../publish/sitemap.ts";

/** One file of a sitemap too large for one (listed by /sitemap.xml when it is an index). */
export const GET = route(operation("getSitemapPart"), async ({ app, pathParams }) => {
  const { page } = pathParams();
  const body = sitemapPart(app.config.baseUrl, await publishedPages(app.publishSource, app.now()), page);
  if (body === null)
    throw new ServiceError("NOT_FOUND", `No sitemap file ${page}; /sitemap.xml lists the files there are`);
  return reply(200, body, { "content-type": SITEMAP_TYPE, "cache-control": "public, max-age=300" });
});

export const ALL = methodNotAllowed(["GET"]);
