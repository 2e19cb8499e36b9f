import { defineConfig } from "drizzle-kit";

/**
 * The PostgreSQL migrations, from the schema derived from src/store/schema.ts
 * (jobs/postgres-schema.ts writes src/store/postgres/schema.ts first; `npm run db:generate` runs both).
 */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/postgres/schema.ts",
  out: "./src/store/postgres/migrations/sql",
});
