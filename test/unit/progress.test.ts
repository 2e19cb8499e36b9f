import { describe, expect, it } from "vitest";
import { amounts, progressBar } from "../../jobs/progress.ts";

/** A bar drawing into a string, on a clock the test moves. */
function fakeBar(tty: boolean, unit?: string) {
  let written = "";
  let clock = 0;
  const bar = progressBar({
    label: "import sirene",
    ...(unit ? { unit } : {}),
    output: { isTTY: tty, write: (text: string) => (written += text) },
    now: () => clock,
  });
  return {
    bar,
    at: (ms: number) => {
      clock = ms;
    },
    written: () => written,
  };
}

describe("the progress of a long command", () => {
  it("shows sizes for bytes and counts otherwise", () => {
    expect(amounts(524_288, 2_900_000_000, "bytes")).toBe("524.3 kB of 2.9 GB");
    expect(amounts(999, 47_000_000, "bytes")).toBe("999 B of 47.0 MB");
    expect(amounts(1234, 100_000, "merchants")).toBe("1,234/100,000 merchants");
  });

  it("on a terminal redraws one bar in place, at most every 100 ms, and ends it full", () => {
    const run = fakeBar(true, "bytes");
    run.at(0);
    run.bar.update(0, 2_000_000, "--etablissements");
    run.at(50);
    run.bar.update(500_000, 2_000_000); // within 100 ms of the last drawing: not drawn
    run.at(120);
    run.bar.update(1_000_000, 2_000_000, "--etablissements, 5,000 rows");
    run.at(130);
    run.bar.end(2_000_000, 2_000_000, "10,000 rows, 12 added");
    expect(run.written().split("\r").slice(1)).toEqual([
      "import sirene [------------------------------]   0% 0 B of 2.0 MB, --etablissements  0.0s\x1b[K",
      "import sirene [###############---------------]  50% 1.0 MB of 2.0 MB, --etablissements, 5,000 rows  0.1s\x1b[K",
      "import sirene [##############################] 100% 2.0 MB of 2.0 MB, 10,000 rows, 12 added  0.1s\x1b[K\n",
    ]);
  });

  it("in a log writes a line every 10 seconds, and a last one only after those", () => {
    const run = fakeBar(false, "bytes");
    for (let ms = 0; ms <= 25_000; ms += 100) {
      run.at(ms);
      run.bar.update(ms * 40_000, 1_000_000_000);
    }
    run.at(25_050);
    run.bar.end(1_000_000_000, 1_000_000_000, "3 rows");
    expect(run.written()).toBe(
      [
        "import sirene: 40% (400.0 MB of 1.0 GB) 10.0s",
        "import sirene: 80% (800.0 MB of 1.0 GB) 20.0s",
        "import sirene: 100% (1.0 GB of 1.0 GB, 3 rows) 25.1s",
        "",
      ].join("\n"),
    );

    const short = fakeBar(false, "bytes");
    short.at(0);
    short.bar.update(0, 100);
    short.at(900);
    short.bar.update(100, 100);
    short.bar.end(100, 100);
    expect(short.written()).toBe("");
  });
});
