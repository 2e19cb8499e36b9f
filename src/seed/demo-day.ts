/** Midnight UTC of the current day: the default `now` of a demo registry (seeding twice the same day writes the same registry). */
export function startOfToday(): Date {
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  return today;
}
