/**
 * The number of a row an insert leaves it out of (an INTEGER PRIMARY KEY numbered by the store,
 * schema.ts): drizzle's SQLite dialect would write `null` there, which SQLite numbers and
 * PostgreSQL's identity refuses. This marker is `null` to SQLite and is written DEFAULT for
 * PostgreSQL (src/store/postgres/store-db.ts; docs/decisions.md, issue 35 item 6).
 */
export const NUMBERED_BY_THE_STORE = "null /* numbered by the store */";
