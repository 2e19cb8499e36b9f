/**
 * The lines of a bulk file (src/import/numbered-lines.ts): numbered from 1, Windows line ends
 * dropped, a last line without its break kept, and a line past the limit given without its text
 * (never held in memory) while the lines after it are read as usual.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ImportLine } from "../../src/domain/merchants/import-json-lines.ts";
import { LINE_LIMIT, numberedLines } from "../../src/import/numbered-lines.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "abeille-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function linesOf(content: string, limit?: number): Promise<ImportLine[]> {
  const file = path.join(dir, `lines-${Math.random().toString(36).slice(2)}.ndjson`);
  writeFileSync(file, content);
  const lines: ImportLine[] = [];
  for await (const line of numberedLines(file, limit)) lines.push(line);
  return lines;
}

describe("the numbered lines of a bulk file", () => {
  it("numbers lines from 1, drops a carriage return before the break, keeps blank and unterminated lines", async () => {
    expect(await linesOf('{"a":1}\r\n\n{"b":"é"}\n{"c":3}')).toEqual([
      { number: 1, text: '{"a":1}' },
      { number: 2, text: "" },
      { number: 3, text: '{"b":"é"}' },
      { number: 4, text: '{"c":3}' },
    ]);
    expect(await linesOf("")).toEqual([]);
    expect(await linesOf("\n")).toEqual([{ number: 1, text: "" }]);
  });

  it("gives a line past the limit without its text, and reads on", async () => {
    expect(await linesOf(`short\n${"x".repeat(11)}\n${"y".repeat(10)}\r\nlast ${"z".repeat(20)}`, 10)).toEqual([
      { number: 1, text: "short" },
      { number: 2, text: "", overLimit: true },
      { number: 3, text: "y".repeat(10) },
      { number: 4, text: "", overLimit: true },
    ]);
  });

  it("holds at most the limit of a line that spans many chunks (a file without line breaks)", async () => {
    const huge = `{"a":"${"w".repeat(LINE_LIMIT * 3)}"}`;
    expect(await linesOf(`${huge}\n{"ok":true}\n`)).toEqual([
      { number: 1, text: "", overLimit: true },
      { number: 2, text: '{"ok":true}' },
    ]);
  });
});
