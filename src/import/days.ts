/** The days of the daily imports (SIRENE's changes, BODACC's announcements). */

/**
 * Every day up to the one returned is done, once `day` was read: a source that publishes a day at
 * once (INSEE the morning after, BODACC its issue) has all of a day whose records came in, and an
 * empty day before it was empty; today is never done (more may come), nor an empty day nothing
 * came after yet (its records may be late). Shared by the daily imports of SIRENE and BODACC.
 */
export function doneThrough(through: string | null, day: string, answered: boolean, today: string): string | null {
  if (!answered || day >= today) return through;
  return through === null || day > through ? day : through;
}
