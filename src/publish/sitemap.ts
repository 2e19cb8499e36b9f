import type { PublishSource } from "../store/publish-source.ts";
import { escapeHtml } from "./html.ts";
import { isPublishedStatus } from "./view.ts";

/**
 * robots.txt and the sitemap: crawlers are first-class readers of the published artifacts. The
 * sitemap lists the front door and, for every published merchant, its page and its ai.md, each
 * with `<lastmod>`: when the merchant's page last changed (a write to what it shows, or a signal
 * expiry passed: PublishSource.modificationsAfter). A file holds at most 50,000 URLs
 * (sitemaps.org): past that, /sitemap.xml is an index of /sitemaps/{n}, each with
 * MERCHANTS_PER_FILE merchants and its own `<lastmod>` (its latest). The list is read again only
 * when the store's revision moved or a signal expiry it counted on passed.
 */
export const MERCHANTS_PER_FILE = 24_999;
export const SITEMAP_TYPE = "application/xml; charset=utf-8";

/** A published merchant, and when its page last changed (an ISO instant). */
export interface PublishedPage {
  abId: string;
  lastModified: string;
}

const cache = new WeakMap<PublishSource, { revision: number; validUntil: string | null; pages: PublishedPage[] }>();
const BATCH = 5000;

/** Every published merchant, in ab_id order, with when its page last changed as of `now`. */
export async function publishedPages(source: PublishSource, now: Date): Promise<PublishedPage[]> {
  const revision = await source.revision();
  const nowIso = now.toISOString();
  const cached = cache.get(source);
  if (cached?.revision === revision && (cached.validUntil === null || nowIso < cached.validUntil)) return cached.pages;
  const pages: PublishedPage[] = [];
  let validUntil: string | null = null;
  let after = "";
  for (;;) {
    const batch = await source.modificationsAfter(after, BATCH, nowIso);
    for (const merchant of batch) {
      if (!isPublishedStatus(merchant.status)) continue;
      pages.push({ abId: merchant.abId, lastModified: merchant.lastModified });
      if (merchant.nextChange !== null && (validUntil === null || merchant.nextChange < validUntil)) {
        validUntil = merchant.nextChange;
      }
    }
    const last = batch.at(-1);
    if (!last || batch.length < BATCH) break;
    after = last.abId;
  }
  cache.set(source, { revision, validUntil, pages });
  return pages;
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

/** A W3C datetime to the second, as sitemaps.org writes them: 2026-11-01T10:00:00Z. */
export function w3cDatetime(iso: string): string {
  return iso.replace(/\.\d+Z$/, "Z");
}

const lastmod = (iso: string | undefined) => (iso ? `<lastmod>${escapeHtml(w3cDatetime(iso))}</lastmod>` : "");

interface SitemapUrl {
  loc: string;
  lastModified?: string;
}

function urlset(urls: SitemapUrl[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls
    .map((url) => `<url><loc>${escapeHtml(url.loc)}</loc>${lastmod(url.lastModified)}</url>`)
    .join("\n")}\n</urlset>\n`;
}

/**
 * The front door shows no merchant data: it has no date of its own to give (it changes with the
 * service's code), so it goes without `<lastmod>` rather than with an invented one.
 */
const frontDoor = (baseUrl: string): SitemapUrl => ({ loc: `${baseUrl}/` });

function merchantUrls(baseUrl: string, pages: readonly PublishedPage[]): SitemapUrl[] {
  return pages.flatMap(({ abId, lastModified }) => [
    { loc: `${baseUrl}/m/${abId}/`, lastModified },
    { loc: `${baseUrl}/m/${abId}/ai.md`, lastModified },
  ]);
}

/** /sitemap.xml: every URL when they fit one file, else the index of the /sitemaps/{n} files. */
export function sitemapXml(baseUrl: string, pages: readonly PublishedPage[]): string {
  if (pages.length <= MERCHANTS_PER_FILE) return urlset([frontDoor(baseUrl), ...merchantUrls(baseUrl, pages)]);
  const files = Math.ceil(pages.length / MERCHANTS_PER_FILE);
  const entries = Array.from({ length: files }, (_, index) => {
    const part = pages.slice(index * MERCHANTS_PER_FILE, (index + 1) * MERCHANTS_PER_FILE);
    const latest = part.reduce((max, page) => (page.lastModified > max ? page.lastModified : max), "");
    return `<sitemap><loc>${escapeHtml(`${baseUrl}/sitemaps/${index + 1}`)}</loc>${lastmod(latest || undefined)}</sitemap>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join("\n")}\n</sitemapindex>\n`;
}

/** /sitemaps/{n} (from 1), or null past the last one (or when /sitemap.xml holds every URL). */
export function sitemapPart(baseUrl: string, pages: readonly PublishedPage[], part: number): string | null {
  if (pages.length <= MERCHANTS_PER_FILE) return null;
  const slice = pages.slice((part - 1) * MERCHANTS_PER_FILE, part * MERCHANTS_PER_FILE);
  if (slice.length === 0) return null;
  return urlset([...(part === 1 ? [frontDoor(baseUrl)] : []), ...merchantUrls(baseUrl, slice)]);
}
