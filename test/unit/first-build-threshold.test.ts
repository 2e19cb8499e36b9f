import { describe, expect, it } from "vitest";
import { commandBuildsFirstIndex, FIRST_BUILD_IN_COMMAND_MOST } from "../../jobs/search-catch-up.ts";

describe("who builds a missing search index after an import (jobs/search-catch-up.ts)", () => {
  it("is the command up to 100,000 merchants spoken for, the server past it", () => {
    expect(FIRST_BUILD_IN_COMMAND_MOST).toBe(100_000);
    expect(commandBuildsFirstIndex(0)).toBe(true);
    expect(commandBuildsFirstIndex(2_000)).toBe(true);
    expect(commandBuildsFirstIndex(100_000)).toBe(true);
    expect(commandBuildsFirstIndex(100_001)).toBe(false);
    expect(commandBuildsFirstIndex(5_169_741)).toBe(false);
  });
});
