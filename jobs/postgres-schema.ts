/**
 * Writes src/store/postgres/schema.ts, the PostgreSQL tables derived from src/store/schema.ts
 * (src/store/postgres/derive-schema.ts). Run by `npm run db:generate` before drizzle-kit.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { renderPostgresSchema } from "../src/store/postgres/derive-schema.ts";

writeFileSync(path.resolve("src/store/postgres/schema.ts"), renderPostgresSchema());
console.log("wrote src/store/postgres/schema.ts");
