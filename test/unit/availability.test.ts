import { describe, expect, it } from "vitest";
import { checkAvailability } from "../../src/domain/availability/check-availability.ts";
import type { OpeningSchedule } from "../../src/domain/availability/opening.ts";
import {
  effectiveTimeZone,
  isoInZone,
  parseDayHours,
  zonedInstant,
} from "../../src/domain/availability/opening-hours.ts";

const OFFICE = {
  lundi: "09:00-12:00,14:00-19:00",
  mardi: "09:00-12:00,14:00-19:00",
  mercredi: "09:00-12:00,14:00-19:00",
  jeudi: "09:00-12:00,14:00-19:00",
  vendredi: "09:00-12:00,14:00-18:00",
  samedi: "fermé",
  dimanche: "fermé",
};

const at = (iso: string) => ({ at: new Date(iso) });

describe("parseDayHours", () => {
  it("reads ranges, closed labels and overnight ranges", () => {
    expect(parseDayHours("09:00-12:00,14:00-19:00")).toEqual({
      kind: "open",
      periods: [
        { start: 540, end: 720 },
        { start: 840, end: 1140 },
      ],
    });
    expect(parseDayHours("fermé")).toEqual({ kind: "closed" });
    expect(parseDayHours("Fermé")).toEqual({ kind: "closed" });
    expect(parseDayHours("00:00-24:00")).toEqual({ kind: "open", periods: [{ start: 0, end: 1440 }] });
    expect(parseDayHours("19:00-02:00")).toEqual({ kind: "open", periods: [{ start: 1140, end: 1560 }] });
    expect(parseDayHours("9h-12h")).toEqual({ kind: "open", periods: [{ start: 540, end: 720 }] });
  });

  it("marks values it cannot read as unknown rather than guessing", () => {
    expect(parseDayHours("sur rendez-vous").kind).toBe("unknown");
    expect(parseDayHours("25:00-26:00").kind).toBe("unknown");
    expect(parseDayHours("09:00-09:00").kind).toBe("unknown");
  });
});

describe("time zone arithmetic", () => {
  it("follows Paris daylight saving time", () => {
    expect(new Date(zonedInstant(2026, 11, 2, 540, "Europe/Paris")).toISOString()).toBe("2026-11-02T08:00:00.000Z");
    expect(new Date(zonedInstant(2026, 7, 6, 540, "Europe/Paris")).toISOString()).toBe("2026-07-06T07:00:00.000Z");
    // The fall-back and spring-forward Sundays of 2026.
    expect(new Date(zonedInstant(2026, 10, 25, 540, "Europe/Paris")).toISOString()).toBe("2026-10-25T08:00:00.000Z");
    expect(new Date(zonedInstant(2026, 3, 29, 540, "Europe/Paris")).toISOString()).toBe("2026-03-29T07:00:00.000Z");
    // 02:30 does not exist on 29 March 2026 in Paris: moved forward by the gap, to 03:30 (as Temporal's "compatible").
    expect(new Date(zonedInstant(2026, 3, 29, 150, "Europe/Paris")).toISOString()).toBe("2026-03-29T01:30:00.000Z");
    // 02:30 happens twice on 25 October 2026: the earlier one (summer time).
    expect(new Date(zonedInstant(2026, 10, 25, 150, "Europe/Paris")).toISOString()).toBe("2026-10-25T00:30:00.000Z");
  });

  it("writes instants with the zone's offset", () => {
    expect(isoInZone(Date.parse("2026-11-02T08:00:00Z"), "Europe/Paris")).toBe("2026-11-02T09:00:00+01:00");
    expect(isoInZone(Date.parse("2026-07-06T07:00:00Z"), "Europe/Paris")).toBe("2026-07-06T09:00:00+02:00");
    expect(isoInZone(Date.parse("2026-07-06T07:00:00Z"), "America/Martinique")).toBe("2026-07-06T03:00:00-04:00");
  });

  it("falls back to Europe/Paris for a missing or invalid time zone", () => {
    expect(effectiveTimeZone(null)).toBe("Europe/Paris");
    expect(effectiveTimeZone("Mars/Olympus")).toBe("Europe/Paris");
    expect(effectiveTimeZone("Indian/Reunion")).toBe("Indian/Reunion");
  });
});

/** A usual week alone: no exception, a department without Alsace-Moselle's holidays. */
const usual = (hours: Record<string, string> | null): OpeningSchedule => ({ hours, exceptions: [], department: "69" });

describe("checkAvailability", () => {
  it("is open inside a period, with its closing time in the merchant's zone", () => {
    const result = checkAvailability(usual(OFFICE), at("2026-11-02T10:00:00Z"));
    expect(result.time_zone).toBe("Europe/Paris");
    expect(result.checked_at).toBe("2026-11-02T11:00:00+01:00");
    expect(result.local_weekday).toBe("lundi");
    expect(result.open_now).toBe(true);
    expect(result.current_period).toEqual({
      opened_at: "2026-11-02T09:00:00+01:00",
      closes_at: "2026-11-02T12:00:00+01:00",
    });
    expect(result.next_opening).toEqual({
      weekday: "lundi",
      opens_at: "2026-11-02T14:00:00+01:00",
      closes_at: "2026-11-02T19:00:00+01:00",
    });
    expect(result.summary).toContain("Open now until 2026-11-02T12:00:00+01:00");
  });

  it("is closed at lunch and reopens the same afternoon", () => {
    const result = checkAvailability(usual(OFFICE), at("2026-11-02T11:30:00Z"));
    expect(result.open_now).toBe(false);
    expect(result.current_period).toBeNull();
    expect(result.next_opening?.opens_at).toBe("2026-11-02T14:00:00+01:00");
  });

  it("skips closed days to the next opening", () => {
    const result = checkAvailability(usual(OFFICE), at("2026-11-08T10:00:00Z"));
    expect(result.local_weekday).toBe("dimanche");
    expect(result.today).toEqual({ day: "dimanche", declared: "fermé", status: "closed", periods: [] });
    expect(result.open_now).toBe(false);
    expect(result.next_opening).toMatchObject({ weekday: "lundi", opens_at: "2026-11-09T09:00:00+01:00" });
    expect(result.summary).toMatch(/^Closed now; next opening lundi/);
  });

  it("does not take a public holiday for a usual day, and follows the merchant's exceptions, as search does", () => {
    // Wednesday 11 November 2026 (Armistice), 11:00 in Paris.
    const holiday = checkAvailability(usual(OFFICE), at("2026-11-11T10:00:00Z"));
    expect(holiday.open_now).toBeNull();
    expect(holiday.today_hours).toBe("public holiday (Armistice 1918): hours not declared");
    expect(holiday.next_opening).toMatchObject({ weekday: "jeudi", opens_at: "2026-11-12T09:00:00+01:00" });
    expect(holiday.summary).toMatch(
      /^Today is a public holiday \(Armistice 1918\) the merchant declared no hours for; next opening jeudi/,
    );
    const exceptions = [
      { from: "2026-11-11", to: "2026-11-11", hours: "10:00-12:00", note: "permanence" },
      { from: "2026-11-12", to: "2026-11-13", hours: "fermé", note: null },
    ];
    const open = checkAvailability({ ...usual(OFFICE), exceptions }, at("2026-11-11T10:00:00Z"));
    expect(open.open_now).toBe(true);
    expect(open.today_hours).toBe("10:00-12:00 (exception: permanence)");
    expect(open.current_period).toEqual({
      opened_at: "2026-11-11T10:00:00+01:00",
      closes_at: "2026-11-11T12:00:00+01:00",
    });
    // Closed Thursday and Friday by the exception; Saturday and Sunday closed: Monday 16.
    expect(open.next_opening).toMatchObject({ weekday: "lundi", opens_at: "2026-11-16T09:00:00+01:00" });
  });

  it("closes at the period's end: the closing minute itself is closed", () => {
    expect(checkAvailability(usual(OFFICE), at("2026-11-02T17:59:59Z")).open_now).toBe(true);
    expect(checkAvailability(usual(OFFICE), at("2026-11-02T18:00:00Z")).open_now).toBe(false);
  });

  it("uses summer time in summer", () => {
    const result = checkAvailability(usual(OFFICE), at("2026-07-06T07:30:00Z"));
    expect(result.open_now).toBe(true);
    expect(result.checked_at).toBe("2026-07-06T09:30:00+02:00");
  });

  it("follows an overnight range past midnight", () => {
    const hours = { ...OFFICE, samedi: "19:00-02:00" };
    const result = checkAvailability(usual(hours), at("2026-10-31T23:30:00Z"));
    expect(result.local_weekday).toBe("dimanche");
    expect(result.open_now).toBe(true);
    expect(result.current_period?.closes_at).toBe("2026-11-01T02:00:00+01:00");
  });

  it("reports a merchant open every day around the clock without a closing time", () => {
    const always = Object.fromEntries(Object.keys(OFFICE).map((day) => [day, "00:00-24:00"]));
    // A week without a public holiday (one would be unknown, even around the clock).
    const result = checkAvailability(usual(always), at("2026-06-03T03:00:00Z"));
    expect(result.open_now).toBe(true);
    expect(result.current_period?.closes_at).toBeNull();
    expect(result.next_opening).toBeNull();
    expect(result.summary).toContain("around the clock");
  });

  it("merges contiguous periods across midnight", () => {
    const hours = { ...OFFICE, lundi: "18:00-24:00", mardi: "00:00-03:00,09:00-12:00" };
    const result = checkAvailability(usual(hours), at("2026-11-02T22:00:00Z"));
    expect(result.open_now).toBe(true);
    expect(result.current_period?.closes_at).toBe("2026-11-03T03:00:00+01:00");
  });

  it("does not guess when today's value cannot be read", () => {
    const result = checkAvailability(usual({ ...OFFICE, lundi: "sur rendez-vous" }), at("2026-11-02T10:00:00Z"));
    expect(result.open_now).toBeNull();
    expect(result.hours_complete).toBe(false);
    expect(result.today.status).toBe("unknown");
    expect(result.next_opening?.weekday).toBe("mardi");
  });

  it("says so when no hours are declared", () => {
    const result = checkAvailability(usual(null), at("2026-11-02T10:00:00Z"));
    expect(result.hours_declared).toBe(false);
    expect(result.open_now).toBeNull();
    expect(result.week).toEqual([]);
    expect(result.summary).toContain("not declared");
  });

  it("reads English day names as the decision card does", () => {
    const result = checkAvailability(usual({ monday: "09:00-18:00" }), at("2026-11-02T10:00:00Z"));
    expect(result.open_now).toBe(true);
    expect(result.week.find((day) => day.day === "mardi")?.status).toBe("unknown");
  });

  it("answers in the merchant's own zone", () => {
    const result = checkAvailability(usual(OFFICE), {
      at: new Date("2026-11-02T14:00:00Z"),
      timeZone: "America/Martinique",
    });
    expect(result.time_zone).toBe("America/Martinique");
    expect(result.checked_at).toBe("2026-11-02T10:00:00-04:00");
    expect(result.open_now).toBe(true);
  });
});
