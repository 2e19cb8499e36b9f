import { describe, expect, it } from "vitest";
import { MERCHANTS_PER_FILE, robotsTxt, sitemapPart, sitemapXml } from "../../src/publish/sitemap.ts";

const BASE = "https://abeille.example";
const ids = (count: number) => Array.from({ length: count }, (_, index) => `ab_${index.toString(36).padStart(8, "0")}`);
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);

describe("the sitemap", () => {
  it("holds every URL in one file while they fit (50,000 at most)", () => {
    const xml = sitemapXml(BASE, ids(MERCHANTS_PER_FILE));
    expect(xml).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(locs(xml)).toHaveLength(2 * MERCHANTS_PER_FILE + 1);
    expect(2 * MERCHANTS_PER_FILE + 1).toBeLessThanOrEqual(50_000);
    expect(sitemapPart(BASE, ids(MERCHANTS_PER_FILE), 1)).toBeNull();
  });

  it("becomes an index of files past that, each file within the limit, every merchant listed once", () => {
    const all = ids(2 * MERCHANTS_PER_FILE + 5);
    const index = sitemapXml(BASE, all);
    expect(index).toContain("<sitemapindex");
    expect(locs(index)).toEqual([`${BASE}/sitemaps/1`, `${BASE}/sitemaps/2`, `${BASE}/sitemaps/3`]);
    const listed = [1, 2, 3].flatMap((part) => locs(sitemapPart(BASE, all, part) ?? ""));
    expect(listed).toHaveLength(2 * all.length + 1);
    expect(listed[0]).toBe(`${BASE}/`);
    expect(listed.at(-1)).toBe(`${BASE}/m/${all.at(-1)}/ai.md`);
    expect(locs(sitemapPart(BASE, all, 3) ?? "")).toHaveLength(10);
    expect(sitemapPart(BASE, all, 4)).toBeNull();
  });

  it("is named in robots.txt", () => {
    expect(robotsTxt(BASE)).toContain(`Sitemap: ${BASE}/sitemap.xml`);
  });
});
