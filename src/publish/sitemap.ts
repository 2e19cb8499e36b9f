import type { PublishSource } from "../store/publish-source.ts";
import { escapeHtml } from "./html.ts";
import { isPublishedStatus } from "./view.ts";

/**
 * robots.txt and the sitemap: crawlers are first-class readers of the published artifacts. The
 * sitemap lists the front door and, for every published merchant, its page and its ai.md. A file
 * holds at most 50,000 URLs (sitemaps.org): past that, /sitemap.xml is an index of
 * /sitemaps/{n}, each with MERCHANTS_PER_FILE merchants. The list is read again only when the
 * store's revision moved.
 */
export const MERCHANTS_PER_FILE = 24_999;
export const SITEMAP_TYPE = "application/xml; charset=utf-8";

const cache = new WeakMap<PublishSource, { revision: number; abIds: string[] }>();

/** Every published merchant's ab_id, in ab_id order. */
export function publishedAbIds(source: PublishSource): string[] {
  const revision = source.revision();
  const cached = cache.get(source);
  if (cached?.revision === revision) return cached.abIds;
  const abIds: string[] = [];
  let after = "";
  for (;;) {
    const page = source.stampsAfter(after, 5000);
    for (const stamp of page) if (isPublishedStatus(stamp.status)) abIds.push(stamp.abId);
    const last = page.at(-1);
    if (!last || page.length < 5000) break;
    after = last.abId;
  }
  cache.set(source, { revision, abIds });
  return abIds;
}

export function robotsTxt(baseUrl: string): string {
  return [
    "# Abeille: merchant pages, their ai.md and the discovery documents are open to crawlers.",
    "User-agent: *",
    "Allow: /",
    "# Search result pages of the front door are not worth indexing.",
    "Disallow: /?",
    "",
    `Sitemap: ${baseUrl}/sitemap.xml`,
    "",
  ].join("\n");
}

function urlset(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls
    .map((url) => `<url><loc>${escapeHtml(url)}</loc></url>`)
    .join("\n")}\n</urlset>\n`;
}

function merchantUrls(baseUrl: string, abIds: readonly string[]): string[] {
  return abIds.flatMap((abId) => [`${baseUrl}/m/${abId}/`, `${baseUrl}/m/${abId}/ai.md`]);
}

/** /sitemap.xml: every URL when they fit one file, else the index of the /sitemaps/{n} files. */
export function sitemapXml(baseUrl: string, abIds: readonly string[]): string {
  if (abIds.length <= MERCHANTS_PER_FILE) return urlset([`${baseUrl}/`, ...merchantUrls(baseUrl, abIds)]);
  const files = Math.ceil(abIds.length / MERCHANTS_PER_FILE);
  const entries = Array.from(
    { length: files },
    (_, index) => `<sitemap><loc>${escapeHtml(`${baseUrl}/sitemaps/${index + 1}`)}</loc></sitemap>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join("\n")}\n</sitemapindex>\n`;
}

/** /sitemaps/{n} (from 1), or null past the last one (or when /sitemap.xml holds every URL). */
export function sitemapPart(baseUrl: string, abIds: readonly string[], part: number): string | null {
  if (abIds.length <= MERCHANTS_PER_FILE) return null;
  const slice = abIds.slice((part - 1) * MERCHANTS_PER_FILE, part * MERCHANTS_PER_FILE);
  if (slice.length === 0) return null;
  return urlset([...(part === 1 ? [`${baseUrl}/`] : []), ...merchantUrls(baseUrl, slice)]);
}
