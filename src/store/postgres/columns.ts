import { customType } from "./drizzle.ts";

/**
 * A JSON value kept as text, written with JSON.stringify and read with JSON.parse: what drizzle's
 * SQLite `text({ mode: "json" })` does, so both engines hold the same bytes and the repositories'
 * raw SQL reads the same string from either (docs/decisions.md: not jsonb, which reorders an
 * object's keys, nor json, which has no btree operator class for `signals_verified`).
 */
export const jsonText = customType<{ data: unknown; driverData: string }>({
  dataType: () => "text",
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => JSON.parse(value) as unknown,
});
