/**
 * What an import of an official file reports of the rows (records) it could not read: how many,
 * and the first REJECTIONS_KEPT of them with where they are. A file of millions of bad lines costs
 * a counter, not a list of millions (a 1 MB gzip of them ended an import out of memory).
 */
export const REJECTIONS_KEPT = 100;

export interface RejectionList<Rejection> {
  /** The first REJECTIONS_KEPT rejections, in the order met. */
  rejected: Rejection[];
  /** Every rejection, those listed included. */
  rejected_count: number;
}

export function addRejection<Rejection>(report: RejectionList<Rejection>, rejection: Rejection): void {
  report.rejected_count += 1;
  if (report.rejected.length < REJECTIONS_KEPT) report.rejected.push(rejection);
}

/** A value of a file quoted in a rejection: the first characters, said cut when it is longer. */
export function quoted(value: string, max = 40): string {
  return value.length <= max ? value : `${value.slice(0, max)}... (${value.length} characters)`;
}
