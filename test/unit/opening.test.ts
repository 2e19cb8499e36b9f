import { describe, expect, it } from "vitest";
import {
  easterSunday,
  frenchPublicHolidays,
  openingAt,
  parisInstant,
  type WeekRanges,
} from "../../src/domain/opening.ts";

const BAKERY: WeekRanges = {
  lundi: [],
  mardi: [
    { opens: "07:00", closes: "13:00" },
    { opens: "15:00", closes: "19:30" },
  ],
  mercredi: [{ opens: "07:00", closes: "19:30" }],
  jeudi: [{ opens: "07:00", closes: "19:30" }],
  vendredi: [{ opens: "07:00", closes: "19:30" }],
  samedi: [{ opens: "07:00", closes: "19:30" }],
  dimanche: [{ opens: "07:00", closes: "12:30" }],
};
const TEXTS = { lundi: "fermé", mardi: "07:00-13:00,15:00-19:30", dimanche: "07:00-12:30" };

describe("French public holidays", () => {
  it("computes Easter and the days that follow it", () => {
    expect([2024, 2025, 2026, 2027].map(easterSunday)).toEqual([
      "2024-03-31",
      "2025-04-20",
      "2026-04-05",
      "2027-03-28",
    ]);
    const holidays = frenchPublicHolidays(2026);
    expect([...holidays.keys()].sort()).toEqual([
      "2026-01-01",
      "2026-04-06",
      "2026-05-01",
      "2026-05-08",
      "2026-05-14",
      "2026-05-25",
      "2026-07-14",
      "2026-08-15",
      "2026-11-01",
      "2026-11-11",
      "2026-12-25",
    ]);
    expect(frenchPublicHolidays(2026, "67").get("2026-04-03")).toBe("Vendredi saint");
    expect(frenchPublicHolidays(2026, "67").get("2026-12-26")).toBe("Saint-Étienne");
  });
});

describe("openingAt, on the Paris clock", () => {
  it("is open inside a range and says when it closes, in winter (UTC+1)", () => {
    // Tuesday 8 December 2026, 10:00 in Paris = 09:00 UTC.
    expect(openingAt(BAKERY, TEXTS, new Date("2026-12-08T09:00:00Z"))).toEqual({
      open_now: true,
      today: "07:00-13:00,15:00-19:30",
      next_change: "2026-12-08T12:00:00.000Z",
    });
  });

  it("is closed at lunch and on Monday, and says when it opens next", () => {
    expect(openingAt(BAKERY, TEXTS, new Date("2026-12-08T13:00:00Z"))).toMatchObject({
      open_now: false,
      next_change: "2026-12-08T14:00:00.000Z",
    });
    // Monday 7 December, closed all day: opens Tuesday at 07:00 Paris.
    expect(openingAt(BAKERY, TEXTS, new Date("2026-12-07T10:00:00Z"))).toEqual({
      open_now: false,
      today: "fermé",
      next_change: "2026-12-08T06:00:00.000Z",
    });
  });

  it("reads summer time (UTC+2), and the night the clocks move", () => {
    // Sunday 28 June 2026, 12:00 in Paris = 10:00 UTC.
    expect(openingAt(BAKERY, TEXTS, new Date("2026-06-28T10:00:00Z"))).toMatchObject({
      open_now: true,
      next_change: "2026-06-28T10:30:00.000Z",
    });
    expect(parisInstant("2026-10-25", 7 * 60).toISOString()).toBe("2026-10-25T06:00:00.000Z");
    expect(parisInstant("2026-03-29", 7 * 60).toISOString()).toBe("2026-03-29T05:00:00.000Z");
  });

  it("does not guess on a public holiday, and skips it for the next change", () => {
    // Friday 25 December 2026 (Noël), 10:00 Paris: unknown; the next change is Saturday's opening.
    expect(openingAt(BAKERY, TEXTS, new Date("2026-12-25T09:00:00Z"))).toEqual({
      open_now: null,
      today: "férié",
      next_change: "2026-12-26T06:00:00.000Z",
    });
  });

  it("is unknown without hours", () => {
    expect(openingAt(null, null, new Date("2026-12-08T09:00:00Z"))).toEqual({
      open_now: null,
      today: null,
      next_change: null,
    });
  });
});
