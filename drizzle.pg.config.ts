import { defineConfig } from "drizzle-kit";

/**
 * The PostgreSQL migrations, from the tables derived from src/store/schema.ts when
 * src/store/postgres/schema.ts loads (src/store/postgres/derive-schema.ts).
 */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/postgres/schema.ts",
  out: "./src/store/postgres/migrations/sql",
});
