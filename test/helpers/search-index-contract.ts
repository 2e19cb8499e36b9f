import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchHit, SearchIndex, SearchPage, SearchQuery } from "../../src/search/search-index.ts";
import { type Db, openDatabase } from "../../src/store/db.ts";
import { FIXTURE, fixtureMerchants, insertFixtureMerchants, LYON, newcomer } from "./search-index-fixture.ts";

/**
 * The behaviour every SearchIndex implementation must show, on the fixture registry of
 * search-index-fixture.ts written into a fresh database in a temporary DATA_DIR. `makeIndex` builds
 * the implementation over that database; the suite calls rebuild() once, then refresh() as it
 * changes the store.
 */
export function describeSearchIndexContract(name: string, makeIndex: (db: Db) => SearchIndex | Promise<SearchIndex>) {
  describe(`SearchIndex contract: ${name}`, () => {
    let dataDir: string;
    let db: Db;
    let index: SearchIndex;

    beforeAll(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), "abeille-search-contract-"));
      db = openDatabase(path.join(dataDir, "abeille.db"));
      insertFixtureMerchants(db, fixtureMerchants);
      index = await makeIndex(db);
      await index.rebuild();
    });

    afterAll(() => {
      db?.$client.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const page = async (text: string, more: Partial<SearchQuery> = {}): Promise<SearchPage> =>
      await index.search({ text, tags: [], near: null, limit: 50, ...more });
    const search = async (text: string, more: Partial<SearchQuery> = {}): Promise<SearchHit[]> =>
      (await page(text, more)).hits;
    const sortedIdsOf = async (text: string, more: Partial<SearchQuery> = {}): Promise<string[]> =>
      (await idsOf(text, more)).sort();
    const idsOf = async (text: string, more: Partial<SearchQuery> = {}): Promise<string[]> =>
      (await search(text, more)).map((hit) => hit.abId);
    const hitFor = async (abId: string, text: string, more: Partial<SearchQuery> = {}): Promise<SearchHit> => {
      const hit = (await search(text, more)).find((candidate) => candidate.abId === abId);
      if (!hit) throw new Error(`${abId} not found for ${JSON.stringify(text)}`);
      return hit;
    };
    const nearLyon = (radiusKm: number) => ({ near: { ...LYON, radiusKm } });

    describe("text matching", () => {
      it("finds merchants by either of their NAF codes, NAF rev. 2 or NAF 2025, as typed with or without the dot", async () => {
        expect(await sortedIdsOf("43.22A")).toEqual([FIXTURE.plumberLyon, FIXTURE.plumberParis].sort());
        expect(await idsOf("43.22G")).toEqual([FIXTURE.plumberLyon]);
        expect(await idsOf("4322g")).toEqual([FIXTURE.plumberLyon]);
        // A merchant known by its NAF 2025 code alone, and its trade from it.
        expect(await idsOf("96.21G")).toEqual([FIXTURE.hairMarseille]);
        expect(await sortedIdsOf("96.02A")).toEqual([FIXTURE.hairVilleurbanne, FIXTURE.hairAtelier].sort());
        expect(await idsOf("coiffure marseille")).toEqual([FIXTURE.hairMarseille]);
        // A code is a filter beside the words and the point.
        expect(await idsOf("43.22A paris")).toEqual([FIXTURE.plumberParis]);
        expect(await idsOf("43.22A", nearLyon(20))).toEqual([FIXTURE.plumberLyon]);
        expect((await hitFor(FIXTURE.plumberLyon, "43.22G")).matched).toEqual(["trade"]);
        expect(await idsOf("56.10C")).toEqual([]);
      });

      it("finds merchants by trade and leaves other trades out", async () => {
        const ids = await idsOf("boulangerie");
        expect(ids).toEqual(expect.arrayContaining([FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted]));
        expect(ids).not.toContain(FIXTURE.plumberLyon);
        expect(ids).not.toContain(FIXTURE.hairAtelier);
      });

      it("ignores case and accents", async () => {
        const plain = await idsOf("boulangerie");
        expect(await idsOf("BOULANGERIE")).toEqual(plain);
        expect(await idsOf("Bôulangérie")).toEqual(plain);
        expect(await idsOf("ÉCURIE")).toEqual([FIXTURE.stable]);
        expect(await idsOf("ecurie")).toEqual([FIXTURE.stable]);
      });

      it("folds plurals to singulars, stop words aside", async () => {
        const expected = await idsOf("plombier lyon");
        expect(expected).toEqual([FIXTURE.plumberLyon]);
        expect(await idsOf("Plombiers à Lyon")).toEqual(expected);
        expect(await idsOf("PLOMBIER LYON")).toEqual(expected);
        expect(await idsOf("gâteaux")).toEqual(expect.arrayContaining([FIXTURE.bakeryTrusted]));
        expect(await idsOf("chevaux")).toEqual([FIXTURE.stable]);
      });

      it("requires every word to match somewhere in the merchant", async () => {
        expect(await idsOf("plombier paris")).toEqual([FIXTURE.plumberParis]);
        expect(await idsOf("plombier marseille")).toEqual([]);
      });

      it("matches the last word typed as a prefix", async () => {
        expect(await idsOf("boulan")).toEqual(
          expect.arrayContaining([FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted]),
        );
        expect(await idsOf("plomb")).toEqual(expect.arrayContaining([FIXTURE.plumberLyon, FIXTURE.plumberParis]));
        expect(await idsOf("coiffure villeur")).toEqual([FIXTURE.hairVilleurbanne]);
      });

      it("drops French elisions", async () => {
        expect(await idsOf("l'atelier")).toEqual([FIXTURE.hairAtelier]);
        expect(await idsOf("L’Atelier du cheveu")).toEqual([FIXTURE.hairAtelier]);
      });

      it("matches a postal code against the merchant's place", async () => {
        expect(await idsOf("69100")).toEqual([FIXTURE.hairVilleurbanne]);
        expect(await idsOf("boulangerie 69003")).toEqual(
          expect.arrayContaining([FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted]),
        );
      });

      it("finds a merchant by its name", async () => {
        expect(await idsOf("Martin Dépannage")).toEqual([FIXTURE.plumberLyon]);
      });

      it("lists the products matching the text first, and none when only the merchant matched", async () => {
        expect((await hitFor(FIXTURE.bakeryTrusted, "gâteaux")).matchedProductIds[0]).toBe("pr_bake0001_2");
        expect((await hitFor(FIXTURE.bakeryTrusted, "pain campagne")).matchedProductIds[0]).toBe("pr_bake0001_1");
        expect((await hitFor(FIXTURE.plumberLyon, "plombier")).matchedProductIds).toEqual([]);
      });
    });

    describe("identifiers", () => {
      it("finds a merchant by its SIRET, spaces allowed, alone and as an identifier match", async () => {
        const hits = await search("443 061 841 00047");
        expect(hits.map((hit) => hit.abId)).toEqual([FIXTURE.plumberLyon]);
        expect(hits[0]?.matched).toEqual(["identifier"]);
        expect(await idsOf("44306184100047")).toEqual([FIXTURE.plumberLyon]);
        expect(await idsOf("SIRET 443.061.841.00047")).toEqual([FIXTURE.plumberLyon]);
      });

      it("finds every listed establishment of a SIREN", async () => {
        expect(await sortedIdsOf("443 061 841")).toEqual([FIXTURE.plumberLyon, FIXTURE.stable].sort());
      });

      it("finds a merchant by its ab_id in any case, never an archived one", async () => {
        expect(await idsOf("AB_HAIR0002")).toEqual([FIXTURE.hairAtelier]);
        expect(await idsOf(FIXTURE.bakeryArchived)).toEqual([]);
      });

      it("gives the identifier a score above any other hit", async () => {
        expect((await search(FIXTURE.stable))[0]?.score).toBe(100);
      });
    });

    describe("trade vocabulary", () => {
      const hair = [FIXTURE.hairVilleurbanne, FIXTURE.hairAtelier, FIXTURE.hairMarseille].sort();

      it("finds a trade by its usual names, singular or plural", async () => {
        for (const text of ["coiffeur", "coiffeurs", "salon de coiffure", "Coiffeuses"]) {
          expect(await sortedIdsOf(text), text).toEqual(hair);
        }
        expect(await idsOf("mécanicien")).toEqual([FIXTURE.garageProbation]);
        expect(await idsOf("garagistes")).toEqual([FIXTURE.garageProbation]);
      });

      it("finds a trade by its common English name", async () => {
        expect(await sortedIdsOf("hairdresser")).toEqual(hair);
        expect(await sortedIdsOf("plumbers")).toEqual([FIXTURE.plumberLyon, FIXTURE.plumberParis].sort());
        expect(await sortedIdsOf("bakery")).toEqual(
          [FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted, FIXTURE.bakeryNoPoint].sort(),
        );
        expect(await idsOf("mechanic")).toEqual([FIXTURE.garageProbation]);
        expect(await idsOf("bookshop")).toEqual([FIXTURE.bookshopMacon]);
      });

      it("drops filler words around what is looked for", async () => {
        expect(await idsOf("plombier près de Lyon")).toEqual([FIXTURE.plumberLyon]);
        expect(await idsOf("un bon plombier à proximité de Paris")).toEqual([FIXTURE.plumberParis]);
        expect(await idsOf("plumber near Paris")).toEqual([FIXTURE.plumberParis]);
      });

      it("never matches a trade word through the town alone, in the place or the description", async () => {
        expect(await idsOf("maçon")).toEqual([]);
        expect(await idsOf("maçons")).toEqual([]);
        expect(await idsOf("librairie mâcon")).toEqual([FIXTURE.bookshopMacon]);
        expect(await idsOf("poèmes mâcon")).toEqual([FIXTURE.bookshopMacon]);
        expect(await idsOf("71000")).toEqual([FIXTURE.bookshopMacon]);
      });
    });

    describe("typos", () => {
      it("finds a word of five letters or more typed with one typo", async () => {
        expect(await idsOf("boulangeire dupont")).toEqual([FIXTURE.bakeryTrusted]);
        expect(await idsOf("Gargae du Rhône")).toEqual([FIXTURE.garageProbation]);
        expect(await sortedIdsOf("fleurizte")).toEqual(
          [FIXTURE.floristPaused, FIXTURE.floristNear, FIXTURE.floristFar].sort(),
        );
        expect(await idsOf("Lamartime")).toEqual([FIXTURE.bookshopMacon]);
      });

      it("does not take a trade word for another word one typo away", async () => {
        // "maçon" is a trade word: it is not "Manon", nor the florists' "Saône" with a typo.
        expect(await idsOf("maçon")).toEqual([]);
        expect(await idsOf("plombeir")).toEqual(expect.arrayContaining([FIXTURE.plumberLyon, FIXTURE.plumberParis]));
      });

      it("does not forgive a typo in a shorter word, nor in a postal code", async () => {
        expect(await idsOf("pian")).toEqual([]);
        expect(await idsOf("69101")).toEqual([]);
      });
    });

    describe("what matched", () => {
      it("says which fields the words matched", async () => {
        expect((await hitFor(FIXTURE.bakeryTrusted, "boulangerie dupont")).matched).toEqual(["name", "trade"]);
        expect((await hitFor(FIXTURE.plumberLyon, "fuite lyon")).matched).toEqual(["trade", "product", "place"]);
        expect((await hitFor(FIXTURE.bookshopMacon, "poésie")).matched).toEqual(["description"]);
      });

      it("counts a tag filter as a tag match", async () => {
        expect((await hitFor(FIXTURE.hairVilleurbanne, "coiffure", { tags: ["bio"] })).matched).toContain("tag");
      });

      it("scores every hit from 0 to 100", async () => {
        for (const hit of await search("boulangerie")) {
          expect(hit.score).toBeGreaterThan(0);
          expect(hit.score).toBeLessThanOrEqual(100);
        }
      });
    });

    describe("paging", () => {
      it("pages through the same answer with offset, and counts it all", async () => {
        const all = await idsOf("boulangerie");
        expect(all).toHaveLength(3);
        expect((await page("boulangerie", { limit: 1 })).estimatedTotal).toBe(3);
        const pages = [];
        for (let offset = 0; offset < 3; offset += 1) {
          pages.push(...(await idsOf("boulangerie", { limit: 1, offset })));
        }
        expect(pages).toEqual(all);
        expect(await idsOf("boulangerie", { limit: 1, offset: 3 })).toEqual([]);
      });

      it("counts the merchants near a point", async () => {
        const near = await page("de la", nearLyon(3));
        expect(near.estimatedTotal).toBeGreaterThanOrEqual(near.hits.length);
        expect(near.hits.length).toBeGreaterThan(0);
      });
    });

    describe("tags", () => {
      it("keeps only merchants carrying every listed tag, each on some product", async () => {
        const ids = await idsOf("coiffure", { tags: ["bio", "sur rendez-vous"] });
        expect(ids.sort()).toEqual([FIXTURE.hairMarseille, FIXTURE.hairVilleurbanne].sort());
      });

      it("normalises tags like text (case, accents, separators)", async () => {
        const ids = await idsOf("coiffure", { tags: ["BIO", "Sur Rendez Vous"] });
        expect(ids.sort()).toEqual([FIXTURE.hairMarseille, FIXTURE.hairVilleurbanne].sort());
      });

      it("lists the products carrying the most requested tags first", async () => {
        const hit = await hitFor(FIXTURE.hairVilleurbanne, "coiffure", { tags: ["bio", "sur rendez-vous"] });
        expect(hit.matchedProductIds).toEqual(["pr_hair0001_2", "pr_hair0001_1"]);
      });

      it("matches nothing for a tag nobody carries", async () => {
        expect(await idsOf("boulangerie", { tags: ["a-tag-nobody-has"] })).toEqual([]);
      });
    });

    describe("geo", () => {
      it("keeps every hit within the radius and reports its distance", async () => {
        const hits = await search("coiffure", nearLyon(10));
        expect(hits.map((hit) => hit.abId).sort()).toEqual([FIXTURE.hairAtelier, FIXTURE.hairVilleurbanne].sort());
        for (const hit of hits) {
          const merchant = fixtureMerchants.find((candidate) => candidate.abId === hit.abId);
          if (!merchant?.point) throw new Error(`unexpected hit ${hit.abId}`);
          expect(hit.distanceKm).not.toBeNull();
          expect(hit.distanceKm ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(10);
          expect(hit.distanceKm ?? 0).toBeCloseTo(referenceDistanceKm(LYON, merchant.point), 1);
          expect(Math.round((hit.distanceKm ?? 0) * 100) / 100).toBe(hit.distanceKm);
        }
      });

      it("reports no distance without a point", async () => {
        for (const hit of await search("coiffure")) expect(hit.distanceKm).toBeNull();
      });

      it("leaves out merchants without coordinates when a point is given", async () => {
        expect(await idsOf("boulangerie")).toContain(FIXTURE.bakeryNoPoint);
        expect(await idsOf("boulangerie", nearLyon(1000))).not.toContain(FIXTURE.bakeryNoPoint);
      });

      it("combines a point and tags", async () => {
        expect(await idsOf("coiffure", { ...nearLyon(10), tags: ["bio", "sur rendez-vous"] })).toEqual([
          FIXTURE.hairVilleurbanne,
        ]);
      });
    });

    describe("opening filters (open_now, open_at)", () => {
      // Fixed instants on the Paris clock (UTC+1 in December).
      const TUESDAY_10H = new Date("2026-12-08T09:00:00Z");
      const TUESDAY_14H = new Date("2026-12-08T13:00:00Z");
      const SUNDAY_11H = new Date("2026-12-06T10:00:00Z");
      const SUNDAY_13H = new Date("2026-12-06T12:00:00Z");
      const CHRISTMAS_10H = new Date("2026-12-25T09:00:00Z");
      const AFTER_CHRISTMAS_TUESDAY_10H = new Date("2026-12-29T09:00:00Z");
      const openAt = (...instants: Date[]) => ({ openAt: instants });

      it("keeps the merchants open at the instant, by their week, and none whose hours are unknown", async () => {
        expect(await idsOf("boulangerie", openAt(TUESDAY_10H))).toEqual([
          FIXTURE.bakeryTrusted,
          FIXTURE.bakeryLessTrusted,
        ]);
        // The lunch break of Tuesday; the bakery of Grenoble declares no hours.
        expect(await idsOf("boulangerie", openAt(TUESDAY_14H))).toEqual([]);
        expect((await page("boulangerie", openAt(TUESDAY_14H))).estimatedTotal).toBe(0);
      });

      it("checks the minute, not only the hour: closed at 19:45 after a 19:30 closing", async () => {
        expect(await idsOf("boulangerie", openAt(new Date("2026-12-08T18:25:00Z")))).toHaveLength(2);
        expect(await idsOf("boulangerie", openAt(new Date("2026-12-08T18:45:00Z")))).toEqual([]);
        expect((await page("boulangerie", openAt(new Date("2026-12-08T18:45:00Z")))).estimatedTotal).toBe(0);
      });

      it("reads a Sunday: the bakeries' morning, then closed; the florist closed all day", async () => {
        expect(await sortedIdsOf("boulangerie", openAt(SUNDAY_11H))).toEqual(
          [FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted].sort(),
        );
        expect(await idsOf("boulangerie", openAt(SUNDAY_13H))).toEqual([]);
        expect(await idsOf("fleuriste", openAt(SUNDAY_11H))).toEqual([]);
        expect(await idsOf("fleuriste", openAt(TUESDAY_10H))).toEqual([FIXTURE.floristNear]);
      });

      it("does not take a public holiday for a usual day: only an exception opens then", async () => {
        // Noël, a Friday: the bakeries' Friday hours do not say; the plumber is on call by an exception.
        expect(await idsOf("boulangerie", openAt(CHRISTMAS_10H))).toEqual([]);
        expect(await idsOf("plombier", openAt(CHRISTMAS_10H))).toEqual([FIXTURE.plumberLyon]);
        expect(await idsOf("plombier", openAt(new Date("2026-12-25T12:00:00Z")))).toEqual([]);
      });

      it("follows an exception's closure over several days", async () => {
        expect(await idsOf("boulangerie", openAt(AFTER_CHRISTMAS_TUESDAY_10H))).toEqual([FIXTURE.bakeryTrusted]);
        expect((await page("boulangerie", openAt(AFTER_CHRISTMAS_TUESDAY_10H))).estimatedTotal).toBe(1);
      });

      it("asks every instant given, with the other filters, a point and a merchant's identifier", async () => {
        expect(await idsOf("boulangerie", openAt(TUESDAY_10H, AFTER_CHRISTMAS_TUESDAY_10H))).toEqual([
          FIXTURE.bakeryTrusted,
        ]);
        expect(await idsOf("boulangerie", { ...openAt(TUESDAY_10H), tags: ["sans gluten"], ...nearLyon(5) })).toEqual([
          FIXTURE.bakeryTrusted,
          FIXTURE.bakeryLessTrusted,
        ]);
        expect(await idsOf("boulangerie", { ...openAt(TUESDAY_10H), near: { ...LYON, radiusKm: null } })).toEqual([
          FIXTURE.bakeryTrusted,
          FIXTURE.bakeryLessTrusted,
        ]);
        expect(await idsOf("443 061 841 00047", openAt(TUESDAY_10H))).toEqual([FIXTURE.plumberLyon]);
        expect(await idsOf("443 061 841 00047", openAt(SUNDAY_11H))).toEqual([]);
      });

      it("fills each page and counts what passes, page after page", async () => {
        const all = await idsOf("boulangerie", openAt(TUESDAY_10H));
        const paged: string[] = [];
        for (let offset = 0; offset < 3; offset += 1) {
          const one = await page("boulangerie", { ...openAt(TUESDAY_10H), limit: 1, offset });
          expect(one.estimatedTotal).toBe(2);
          paged.push(...one.hits.map((hit) => hit.abId));
        }
        expect(paged).toEqual(all);
      });
    });

    describe("a point without a radius", () => {
      const aroundLyon = { near: { ...LYON, radiusKm: null } };
      const distanceOf = (abId: string) => {
        const point = fixtureMerchants.find((merchant) => merchant.abId === abId)?.point;
        if (!point) throw new Error(`${abId} has no point`);
        return referenceDistanceKm(LYON, point);
      };

      it("cuts at no distance: every placed match, however far", async () => {
        expect(await idsOf("plombier", aroundLyon)).toEqual([FIXTURE.plumberLyon, FIXTURE.plumberParis]);
        expect(await idsOf("plombier", nearLyon(10))).toEqual([FIXTURE.plumberLyon]);
        // The bakery of Grenoble has no coordinates: a point leaves it out, as with a radius.
        expect(await idsOf("boulangerie", aroundLyon)).toEqual([FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted]);
        expect((await page("boulangerie", aroundLyon)).estimatedTotal).toBe(2);
      });

      it("ranks nearer merchants first among equally relevant matches, with their distance", async () => {
        // A NAF code alone: every florist matches it alike.
        const hits = await search("47.76Z", aroundLyon);
        expect(hits.map((hit) => hit.abId)).toEqual([FIXTURE.floristPaused, FIXTURE.floristNear, FIXTURE.floristFar]);
        for (const hit of hits) expect(hit.distanceKm ?? 0).toBeCloseTo(distanceOf(hit.abId), 1);
        const scores = hits.map((hit) => hit.score);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
        // Around the far florist, it comes first; of the two others (text alike but for the name), the nearer.
        expect(await idsOf("fleuriste", { near: { lat: 45.71, lng: 4.8357, radiusKm: null } })).toEqual([
          FIXTURE.floristFar,
          FIXTURE.floristNear,
          FIXTURE.floristPaused,
        ]);
      });

      it("breaks a tie of relevance and distance by trust", async () => {
        expect(await idsOf("boulangerie", aroundLyon)).toEqual([FIXTURE.bakeryTrusted, FIXTURE.bakeryLessTrusted]);
      });

      it("pages through the same order", async () => {
        const all = await idsOf("47.76Z", aroundLyon);
        const paged: string[] = [];
        for (let offset = 0; offset < 3; offset += 1) {
          const one = await page("47.76Z", { ...aroundLyon, limit: 1, offset });
          expect(one.estimatedTotal).toBe(3);
          paged.push(...one.hits.map((hit) => hit.abId));
        }
        expect(paged).toEqual(all);
      });

      it("lists every placed merchant by distance for a point alone", async () => {
        const hits = await search("de la", aroundLyon);
        const placed = fixtureMerchants.filter(
          (merchant) => merchant.point && ["ACTIVE", "PROBATION", "PAUSED"].includes(merchant.status),
        );
        expect(hits.map((hit) => hit.abId).sort()).toEqual(placed.map((merchant) => merchant.abId).sort());
        const distances = hits.map((hit) => hit.distanceKm ?? Number.POSITIVE_INFINITY);
        expect(distances).toEqual([...distances].sort((a, b) => a - b));
        expect(hits[0]?.abId).toBe(FIXTURE.floristPaused);
      });
    });

    describe("listing", () => {
      it("never lists archived merchants, even by their own name", async () => {
        expect(await idsOf("boulangerie")).not.toContain(FIXTURE.bakeryArchived);
        expect(await idsOf("Boulangerie Fantôme")).toEqual([]);
        expect(await idsOf("pain", { tags: ["bio"], ...nearLyon(50) })).not.toContain(FIXTURE.bakeryArchived);
      });

      it("never lists suspended merchants", async () => {
        expect(await idsOf("plombier")).not.toContain(FIXTURE.plumberSuspended);
        expect(await idsOf("Plomberie Suspendue")).toEqual([]);
      });

      it("lists paused and probation merchants (their state says they cannot be contacted)", async () => {
        expect(await idsOf("Fleurs de Saône")).toEqual([FIXTURE.floristPaused]);
        expect(await idsOf("vidange")).toEqual([FIXTURE.garageProbation]);
      });
    });

    describe("ranking", () => {
      it("orders hits by score, highest first", async () => {
        const hits = await search("boulangerie");
        const scores = hits.map((hit) => hit.score);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
      });

      it("ranks the more trusted of two equally relevant merchants first", async () => {
        const ids = await idsOf("boulangerie");
        expect(ids.indexOf(FIXTURE.bakeryTrusted)).toBeLessThan(ids.indexOf(FIXTURE.bakeryLessTrusted));
      });

      it("ranks the closer of two equally relevant and trusted merchants first", async () => {
        const ids = await idsOf("fleuriste", nearLyon(10));
        expect(ids).toContain(FIXTURE.floristFar);
        expect(ids.indexOf(FIXTURE.floristNear)).toBeLessThan(ids.indexOf(FIXTURE.floristFar));
      });
    });

    describe("queries with nothing searchable", () => {
      it("matches nothing when every word is a stop word and nothing else narrows the query", async () => {
        expect(await idsOf("de la")).toEqual([]);
        expect(await idsOf("   ")).toEqual([]);
      });

      it("matches by point alone when the words are all stop words", async () => {
        const hits = await search("de la", nearLyon(3));
        expect(hits.length).toBeGreaterThan(0);
        for (const hit of hits) expect(hit.distanceKm ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(3);
      });

      it("matches by tags alone when the words are all stop words", async () => {
        const ids = await idsOf("le", { tags: ["urgence"] });
        expect(ids.sort()).toEqual([FIXTURE.plumberLyon, FIXTURE.plumberParis].sort());
      });
    });

    describe("limit", () => {
      it("returns at most `limit` hits, the best ones", async () => {
        const all = await idsOf("boulangerie");
        expect(all.length).toBeGreaterThan(2);
        expect(await idsOf("boulangerie", { limit: 1 })).toEqual(all.slice(0, 1));
        expect(await idsOf("boulangerie", { limit: 2 })).toEqual(all.slice(0, 2));
      });
    });

    describe("hostile input", () => {
      const hostile = [
        '"',
        '""',
        "*",
        "pain*",
        "NEAR(pain vin)",
        "NEAR(",
        "pain OR vin",
        "OR",
        "AND NOT",
        "-pain",
        "^pain",
        "name:pain",
        ":",
        "{pain}",
        "{}",
        "( ( (",
        "'",
        "'; DROP TABLE merchants; --",
        '" OR 1=1 --',
        "🍞🥐",
        "pain\u0000vin",
        "\u0000",
        "x".repeat(2_000),
        "pain ".repeat(400),
        "b",
        "\u0301\u0301",
        "\uFFFF\uD800",
      ];

      const label = (text: string) =>
        JSON.stringify(text.length > 40 ? `${text.slice(0, 20)}… (${text.length} chars)` : text);
      it.each(hostile.map((text) => [label(text), text]))("answers %s without failing", async (_label, text) => {
        const hits = await search(text);
        expect(Array.isArray(hits)).toBe(true);
        expect(Array.isArray(await search(text, { tags: [text], ...nearLyon(10) }))).toBe(true);
      });

      it("still finds merchants when operators are typed around real words", async () => {
        expect(await idsOf('"boulangerie" OR -plombier*')).not.toContain(FIXTURE.plumberLyon);
        expect(await idsOf("(boulangerie)")).toContain(FIXTURE.bakeryTrusted);
      });
    });

    describe("refresh and rebuild", () => {
      const exec = (sql: string, ...params: unknown[]) => db.$client.prepare(sql).run(...params);

      it("drops a merchant archived since, and lists it again once reactivated", async () => {
        exec("UPDATE merchants SET status = 'ARCHIVED' WHERE ab_id = ?", FIXTURE.bakeryTrusted);
        await index.refresh([FIXTURE.bakeryTrusted]);
        expect(await idsOf("boulangerie")).not.toContain(FIXTURE.bakeryTrusted);
        exec("UPDATE merchants SET status = 'ACTIVE' WHERE ab_id = ?", FIXTURE.bakeryTrusted);
        await index.refresh([FIXTURE.bakeryTrusted]);
        expect(await idsOf("boulangerie")).toContain(FIXTURE.bakeryTrusted);
      });

      it("adds a new merchant, follows its changes and forgets it once deleted", async () => {
        insertFixtureMerchants(db, [newcomer]);
        await index.refresh([FIXTURE.newcomer]);
        expect(await idsOf("chocolaterie")).toEqual([FIXTURE.newcomer]);
        expect(await idsOf("chocolaterie", nearLyon(5))).toEqual([FIXTURE.newcomer]);

        exec(
          "UPDATE merchants SET business_name = 'Confiserie Nouvelle', legal_name = 'Confiserie Nouvelle SARL' WHERE ab_id = ?",
          FIXTURE.newcomer,
        );
        exec("UPDATE products SET tags = '[\"Praliné\"]' WHERE ab_id = ?", FIXTURE.newcomer);
        await index.refresh([FIXTURE.newcomer]);
        expect(await idsOf("confiserie")).toEqual([FIXTURE.newcomer]);
        expect(await idsOf("chocolaterie")).toEqual([]);
        expect(await idsOf("le", { tags: ["praline"] })).toEqual([FIXTURE.newcomer]);

        exec("DELETE FROM merchants WHERE ab_id = ?", FIXTURE.newcomer);
        await index.refresh([FIXTURE.newcomer]);
        expect(await idsOf("confiserie")).toEqual([]);
        expect(await idsOf("le", { tags: ["praline"] })).toEqual([]);
      });

      it("accepts unknown and repeated ids", async () => {
        await index.refresh(["ab_unknown1", "ab_unknown1", FIXTURE.stable, FIXTURE.stable]);
        expect(await idsOf("écurie")).toEqual([FIXTURE.stable]);
      });

      it("rebuilds to the same answers, reporting progress up to the total", async () => {
        // Scores may move a little (text statistics are recomputed); the answers may not.
        const answer = async () =>
          (await search("coiffure", nearLyon(10))).map((hit) => [hit.abId, hit.distanceKm, hit.matchedProductIds]);
        const before = await answer();
        const progress: [number, number][] = [];
        await index.rebuild((done, total) => progress.push([done, total]));
        expect(await answer()).toEqual(before);
        const last = progress.at(-1);
        expect(last).toBeDefined();
        expect(last?.[0]).toBe(last?.[1]);
      });
    });
  });
}

/** Great-circle distance (mean Earth radius), the contract's own reference. */
function referenceDistanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}
