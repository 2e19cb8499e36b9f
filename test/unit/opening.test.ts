import { describe, expect, it } from "vitest";
import {
  easterSunday,
  frenchPublicHolidays,
  type OpeningSchedule,
  openingAt,
} from "../../src/domain/availability/opening.ts";
import type { HoursException } from "../../src/domain/merchant.ts";
import { openingCheck, openingTokens } from "../../src/search/opening-filter.ts";

/** A bakery's usual week, as merchants declare it (Monday closed, Tuesday with a lunch break). */
const BAKERY_HOURS = {
  lundi: "fermé",
  mardi: "07:00-13:00,15:00-19:30",
  mercredi: "07:00-19:30",
  jeudi: "07:00-19:30",
  vendredi: "07:00-19:30",
  samedi: "07:00-19:30",
  dimanche: "07:00-12:30",
};
const bakery = (exceptions: HoursException[] = [], department: string | null = "69"): OpeningSchedule => ({
  hours: BAKERY_HOURS,
  exceptions,
  department,
});
const at = (iso: string) => new Date(iso);

describe("French public holidays", () => {
  it("computes Easter and the days that follow it", () => {
    expect([2024, 2025, 2026, 2027].map(easterSunday)).toEqual([
      "2024-03-31",
      "2025-04-20",
      "2026-04-05",
      "2027-03-28",
    ]);
    expect([...frenchPublicHolidays(2026).keys()].sort()).toEqual([
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
    expect(frenchPublicHolidays(2026, "69").get("2026-12-26")).toBeUndefined();
  });
});

describe("openingAt, on the Paris clock", () => {
  it("is open inside a range and says when it closes, in winter (UTC+1)", () => {
    // Tuesday 8 December 2026, 10:00 in Paris = 09:00 UTC.
    expect(openingAt(bakery(), at("2026-12-08T09:00:00Z"))).toEqual({
      open_now: true,
      today: "07:00-13:00, 15:00-19:30",
      next_change: "2026-12-08T13:00:00+01:00",
    });
  });

  it("is closed at lunch and on Monday, and says when it opens next", () => {
    expect(openingAt(bakery(), at("2026-12-08T13:00:00Z"))).toEqual({
      open_now: false,
      today: "07:00-13:00, 15:00-19:30",
      next_change: "2026-12-08T15:00:00+01:00",
    });
    // Monday 7 December, closed all day: opens Tuesday at 07:00 Paris.
    expect(openingAt(bakery(), at("2026-12-07T10:00:00Z"))).toEqual({
      open_now: false,
      today: "closed",
      next_change: "2026-12-08T07:00:00+01:00",
    });
  });

  it("reads a Sunday's short morning, in summer time (UTC+2)", () => {
    // Sunday 28 June 2026, 12:00 in Paris = 10:00 UTC; 13:00 Paris: closed until Tuesday 07:00.
    expect(openingAt(bakery(), at("2026-06-28T10:00:00Z"))).toEqual({
      open_now: true,
      today: "07:00-12:30",
      next_change: "2026-06-28T12:30:00+02:00",
    });
    expect(openingAt(bakery(), at("2026-06-28T11:00:00Z"))).toEqual({
      open_now: false,
      today: "07:00-12:30",
      next_change: "2026-06-30T07:00:00+02:00",
    });
  });

  it("says the next opening with the offset of its own day, across the night the clocks move", () => {
    // Saturday 28 March 2026, 21:00 Paris (UTC+1); Sunday 29 March opens at 07:00 Paris (UTC+2).
    expect(openingAt(bakery(), at("2026-03-28T20:00:00Z")).next_change).toBe("2026-03-29T07:00:00+02:00");
  });

  it("does not guess on a public holiday, and skips it for the next change", () => {
    // Friday 25 December 2026 (Noël), 10:00 Paris: unknown; the next change is Saturday's opening.
    expect(openingAt(bakery(), at("2026-12-25T09:00:00Z"))).toEqual({
      open_now: null,
      today: "public holiday (Noël): hours not declared",
      next_change: "2026-12-26T07:00:00+01:00",
    });
    // Saint-Étienne (26 December) is a holiday in Alsace-Moselle only.
    expect(openingAt(bakery([], "67"), at("2026-12-26T09:00:00Z")).open_now).toBeNull();
    expect(openingAt(bakery([], "69"), at("2026-12-26T09:00:00Z")).open_now).toBe(true);
  });

  it("follows the merchant's exceptions: other hours on a date, a closure over days, an opening on a holiday", () => {
    const christmasEve: HoursException = {
      from: "2026-12-24",
      to: "2026-12-24",
      hours: "07:00-12:00",
      note: "veille de Noël",
    };
    // Thursday 24 December 2026, 13:00 Paris: closed by the exception; 25 is Noël (skipped): Saturday 07:00.
    expect(openingAt(bakery([christmasEve]), at("2026-12-24T12:00:00Z"))).toEqual({
      open_now: false,
      today: "07:00-12:00 (exception: veille de Noël)",
      next_change: "2026-12-26T07:00:00+01:00",
    });
    expect(openingAt(bakery([christmasEve]), at("2026-12-24T10:00:00Z"))).toMatchObject({
      open_now: true,
      next_change: "2026-12-24T12:00:00+01:00",
    });
    // A summer closure, 1 to 16 August (15 August, a holiday inside it, closed too); Monday 17 is closed: Tuesday 18.
    const summer: HoursException = { from: "2026-08-01", to: "2026-08-16", hours: "fermé", note: "congés d'été" };
    expect(openingAt(bakery([summer]), at("2026-08-04T08:00:00Z"))).toEqual({
      open_now: false,
      today: "closed (exception: congés d'été)",
      next_change: "2026-08-18T07:00:00+02:00",
    });
    // Open on Noël by an exception, without a note.
    const christmas: HoursException = { from: "2026-12-25", to: "2026-12-25", hours: "08:00-12:00", note: null };
    expect(openingAt(bakery([christmas]), at("2026-12-25T09:00:00Z"))).toEqual({
      open_now: true,
      today: "08:00-12:00 (exception)",
      next_change: "2026-12-25T12:00:00+01:00",
    });
  });

  it("keeps a night past midnight open on the next day; an around-the-clock week changes only at a holiday", () => {
    const bar: OpeningSchedule = {
      hours: { vendredi: "19:00-02:00", samedi: "fermé" },
      exceptions: [],
      department: null,
    };
    // Saturday 12 December 2026, 01:00 Paris: still Friday's night.
    expect(openingAt(bar, at("2026-12-12T00:00:00Z"))).toEqual({
      open_now: true,
      today: "closed",
      next_change: "2026-12-12T02:00:00+01:00",
    });
    const hotel: OpeningSchedule = {
      hours: Object.fromEntries(Object.keys(BAKERY_HOURS).map((day) => [day, "00:00-24:00"])),
      exceptions: [],
      department: null,
    };
    expect(openingAt(hotel, at("2026-06-02T09:00:00Z"))).toEqual({
      open_now: true,
      today: "00:00-24:00",
      next_change: null,
    });
    // Noël is not guessed, even around the clock: what is known ends at its midnight.
    expect(openingAt(hotel, at("2026-12-08T09:00:00Z")).next_change).toBe("2026-12-25T00:00:00+01:00");
  });

  it("is unknown without hours, and on a day the week does not declare", () => {
    expect(openingAt({ hours: null, exceptions: [], department: null }, at("2026-12-08T09:00:00Z"))).toEqual({
      open_now: null,
      today: null,
      next_change: null,
    });
    // Only Tuesday declared: Monday is unknown, and the next change is Tuesday's opening.
    const tuesday: OpeningSchedule = { hours: { mardi: "09:00-12:00" }, exceptions: [], department: null };
    expect(openingAt(tuesday, at("2026-12-07T10:00:00Z"))).toEqual({
      open_now: null,
      today: null,
      next_change: "2026-12-08T09:00:00+01:00",
    });
  });
});

describe("the opening filters' tokens (both engines filter on them first)", () => {
  it("gives each hour of the week a merchant is open at some minute of, its night past midnight to the next day, and the exceptions' dates", () => {
    expect(
      openingTokens({
        hours: { vendredi: "19:00-02:00", samedi: "fermé", dimanche: "10:30-11:15" },
        exceptions: [{ from: "2026-12-24", to: "2026-12-25", hours: "fermé", note: null }],
        department: null,
      }).sort(),
    ).toEqual([
      "o_519",
      "o_520",
      "o_521",
      "o_522",
      "o_523",
      "o_710",
      "o_711",
      "s_600",
      "s_601",
      "x_20261224",
      "x_20261225",
    ]);
  });

  it("asks an instant's hour of its day and of the night before, and the exceptions of both days; a national holiday only through an exception", () => {
    // Tuesday 8 December 2026, 10:40 in Paris.
    expect(openingCheck(at("2026-12-08T09:40:00Z"))).toEqual({
      moment: { date: "2026-12-08", minutes: 640 },
      tokens: ["o_210", "s_210", "x_20261208", "x_20261207"],
    });
    // Noël, a Friday: no hour of the usual week opens it; the night of the 24th still may.
    expect(openingCheck(at("2026-12-25T09:00:00Z")).tokens).toEqual(["s_510", "x_20261225", "x_20261224"]);
    // The night after Noël is not the usual week's either.
    expect(openingCheck(at("2026-12-26T00:30:00Z")).tokens).toEqual(["o_601", "x_20261226", "x_20261225"]);
  });
});
