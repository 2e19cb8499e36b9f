import { describe, expect, it } from "vitest";
import {
  MERCHANTS_PER_FILE,
  type PublishedPage,
  robotsTxt,
  sitemapPart,
  sitemapXml,
} from "../../src/publish/sitemap.ts";

const BASE = "https://abeille.example";
/** Merchants in ab_id order, each page last changed on its own day of 2026 (from 1 January). */
const pages = (count: number): PublishedPage[] =>
  Array.from({ length: count }, (_, index) => ({
    abId: `ab_${index.toString(36).padStart(8, "0")}`,
    lastModified: new Date(Date.UTC(2026, 0, 1 + (index % 300), 8, 30, 0, 123)).toISOString(),
  }));
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);

describe("the sitemap", () => {
  it("holds every URL in one file while they fit (50,000 at most)", () => {
    const xml = sitemapXml(BASE, pages(MERCHANTS_PER_FILE));
    expect(xml).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(locs(xml)).toHaveLength(2 * MERCHANTS_PER_FILE + 1);
    expect(2 * MERCHANTS_PER_FILE + 1).toBeLessThanOrEqual(50_000);
    expect(sitemapPart(BASE, pages(MERCHANTS_PER_FILE), 1)).toBeNull();
  });

  it("dates each merchant's page and ai.md with when the page last changed (W3C datetime)", () => {
    const xml = sitemapXml(BASE, pages(3));
    expect(xml).toContain(
      `<url><loc>${BASE}/m/ab_00000001/</loc><lastmod>2026-01-02T08:30:00Z</lastmod></url>\n<url><loc>${BASE}/m/ab_00000001/ai.md</loc><lastmod>2026-01-02T08:30:00Z</lastmod></url>`,
    );
    // The front door shows no merchant data: no date of its own to give.
    expect(xml).toContain(`<url><loc>${BASE}/</loc></url>`);
    expect(xml.match(/<lastmod>/g)).toHaveLength(6);
  });

  it("becomes an index of files past that, each file within the limit and dated by its latest page", () => {
    const all = pages(2 * MERCHANTS_PER_FILE + 5);
    const index = sitemapXml(BASE, all);
    expect(index).toContain("<sitemapindex");
    expect(locs(index)).toEqual([`${BASE}/sitemaps/1`, `${BASE}/sitemaps/2`, `${BASE}/sitemaps/3`]);
    // Pages change on each of 300 days in turn: the first two files hold them all, the third its five (days 199 to 203).
    expect(index).toContain(`<sitemap><loc>${BASE}/sitemaps/1</loc><lastmod>2026-10-27T08:30:00Z</lastmod></sitemap>`);
    expect(index).toContain(`<sitemap><loc>${BASE}/sitemaps/3</loc><lastmod>2026-07-22T08:30:00Z</lastmod></sitemap>`);
    const listed = [1, 2, 3].flatMap((part) => locs(sitemapPart(BASE, all, part) ?? ""));
    expect(listed).toHaveLength(2 * all.length + 1);
    expect(listed[0]).toBe(`${BASE}/`);
    expect(listed.at(-1)).toBe(`${BASE}/m/${all.at(-1)?.abId}/ai.md`);
    expect(locs(sitemapPart(BASE, all, 3) ?? "")).toHaveLength(10);
    expect(sitemapPart(BASE, all, 4)).toBeNull();
  });

  it("is named in robots.txt", () => {
    expect(robotsTxt(BASE)).toContain(`Sitemap: ${BASE}/sitemap.xml`);
  });
});
