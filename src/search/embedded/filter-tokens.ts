import type { BoundingBox } from "../../domain/geo.ts";

/*
 * Filter tokens: each merchant document carries, in its `filters` column, one token per product
 * tag it carries and one token per grid cell it lies in, at a few grid sizes. Tags and a point
 * then become part of the FTS5 query itself, so FTS5 intersects them with the text (sorted
 * doclists, in C) instead of SQLite checking every text match row by row.
 *
 * User text never reaches these tokens: each one is a letter, an underscore (FILTER_MARK) and
 * more, and the tokenizer keeps underscores inside tokens (tables.ts) while normalised text holds
 * letters and digits only (normalize.ts). A query word is never one of them, a prefix of two
 * characters or more never starts one, and the words the index lists for a prefix or a typo
 * (fts5vocab ranges beginning with such a word) never include one. So text needs no column filter
 * to stay off the `filters` column: a column filter on every word made FTS5 check each match's
 * columns, 25 to 50% of the time of a multi-word query at 100,000 merchants.
 */

/** The second character of every filter token, one normalised text never holds. */
export const FILTER_MARK = "_";

/** Grid sizes in degrees, finest first (0.04 degree is about 4.4 km of latitude). */
export const CELL_SIZES = [0.04, 0.1, 0.25, 0.6, 1.5, 4] as const;

/** A point query uses the finest grid covering its box in at most this many cells. */
export const MAX_QUERY_CELLS = 24;

/** Longest tag token: longer tags are cut (two tags equal up to there filter alike). */
const MAX_TAG_TOKEN = 64;

function cellToken(level: number, latIndex: number, lngIndex: number): string {
  return `g${FILTER_MARK}${level}n${latIndex}e${lngIndex}`;
}

const latIndex = (lat: number, size: number) => Math.floor((lat + 90) / size);
const lngIndex = (lng: number, size: number) => Math.floor((lng + 180) / size);

/** The cells a point lies in, one per grid size. */
export function pointCells(lat: number, lng: number): string[] {
  return CELL_SIZES.map((size, level) => cellToken(level, latIndex(lat, size), lngIndex(lng, size)));
}

/**
 * The cells of the finest grid that cover the box in at most MAX_QUERY_CELLS cells; null when
 * even the coarsest grid needs more (a very large radius): the point is then checked row by row.
 */
export function coveringCells(box: BoundingBox): string[] | null {
  for (const [level, size] of CELL_SIZES.entries()) {
    const lat0 = latIndex(box.minLat, size);
    const lat1 = latIndex(box.maxLat, size);
    const lng0 = lngIndex(box.minLng, size);
    const lng1 = lngIndex(box.maxLng, size);
    if ((lat1 - lat0 + 1) * (lng1 - lng0 + 1) > MAX_QUERY_CELLS) continue;
    const cells: string[] = [];
    for (let lat = lat0; lat <= lat1; lat += 1) {
      for (let lng = lng0; lng <= lng1; lng += 1) cells.push(cellToken(level, lat, lng));
    }
    return cells;
  }
  return null;
}

/** The token of a canonical tag (normalizeTag): "sans gluten" -> "t_sansgluten". */
export function tagToken(canonicalTag: string): string {
  return `t${FILTER_MARK}${canonicalTag.replaceAll(" ", "")}`.slice(0, MAX_TAG_TOKEN);
}

/** A NAF sub-class of a merchant (either of its two codes): 43.22A -> n_4322a. */
export function nafToken(code: string): string {
  return `n${FILTER_MARK}${code.replace(".", "").toLowerCase()}`;
}
