/**
 * The progress of a long command on stderr, one way for every command: on a terminal a bar
 * redrawn in place (at most every 100 ms), with the percentage, what is done of the total and the
 * time so far; in a log (stderr not a terminal) a line every 10 seconds with the same figures, so
 * that a long run piped to a file or a journal shows where it is, and a short one writes nothing.
 */

export interface ProgressBar {
  /** `done` of `total` (items, or bytes with `unit: "bytes"`); `detail` is shown after the figures. */
  update(done: number, total: number, detail?: string): void;
  /**
   * Ends the bar: on a terminal the line is drawn with these last figures and ended; in a log a
   * last line says them when earlier lines were written. Nothing when nothing was drawn.
   */
  end(done?: number, total?: number, detail?: string): void;
}

export interface ProgressOptions {
  label: string;
  /** What is counted: "bytes" shows sizes (12.3 MB of 1.2 GB); any other word follows the counts. */
  unit?: string;
  /** Where to draw (stderr by default); `isTTY` chooses the bar or the lines. */
  output?: { isTTY?: boolean; write(text: string): unknown };
  /** The clock, in milliseconds (performance.now by default). */
  now?: () => number;
}

/** A bar is redrawn at most this often. */
const REDRAW_MS = 100;
/** A log gets a line this often. */
const LOG_EVERY_MS = 10_000;
const BAR_WIDTH = 30;

export function progressBar(options: ProgressOptions): ProgressBar {
  const output = options.output ?? process.stderr;
  const now = options.now ?? (() => performance.now());
  const tty = output.isTTY === true;
  const started = now();
  let lastDraw = tty ? Number.NEGATIVE_INFINITY : started;
  let drawn = false;

  const draw = (done: number, total: number, detail: string | undefined, at: number) => {
    const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
    const percent = `${Math.floor(ratio * 100)}%`;
    const figures = `${amounts(done, total, options.unit)}${detail ? `, ${detail}` : ""}`;
    const seconds = `${((at - started) / 1000).toFixed(1)}s`;
    lastDraw = at;
    drawn = true;
    if (tty) {
      const filled = Math.round(ratio * BAR_WIDTH);
      const bar = `${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}`;
      output.write(`\r${options.label} [${bar}] ${percent.padStart(4)} ${figures}  ${seconds}\x1b[K`);
    } else {
      output.write(`${options.label}: ${percent} (${figures}) ${seconds}\n`);
    }
  };

  return {
    update(done, total, detail) {
      const at = now();
      // On a terminal the last figures are always drawn: the bar ends full.
      const due = tty ? at - lastDraw >= REDRAW_MS || done >= total : at - lastDraw >= LOG_EVERY_MS;
      if (due) draw(done, total, detail, at);
    },
    end(done, total, detail) {
      if (!drawn) return;
      if (done !== undefined && total !== undefined) draw(done, total, detail, now());
      if (tty) output.write("\n");
      drawn = false;
    },
  };
}

/** What is done of the total: "1,234/100,000 merchants", or for bytes "12.3 MB of 1.2 GB". */
export function amounts(done: number, total: number, unit: string | undefined): string {
  if (unit === "bytes") return `${size(done)} of ${size(total)}`;
  const counts = `${count(done)}/${count(total)}`;
  return unit ? `${counts} ${unit}` : counts;
}

/** A count as people read it: 1,234,567. */
export function count(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** A size in bytes, in the decimal units file managers show: 523 B, 12.3 MB, 2.9 GB. */
export function size(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let index = 0;
  while (value >= 1000 && index < units.length - 1) {
    value /= 1000;
    index += 1;
  }
  return index === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[index]}`;
}
