/**
 * `npm start`: apply migrations, seed the demo registry when the database is empty, then serve.
 * (package.json builds the bundle first.)
 */
import { loadConfig } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { seedIfEmpty } from "./seed.ts";
import { startServer } from "./serve.ts";

const config = loadConfig();
await seedIfEmpty(config);
const running = await startServer({ port: config.port, host: config.host });
logger.info("listening", { url: running.url, base_url: config.baseUrl, data_dir: config.dataDir });
process.stdout.write(`Abeille is serving ${config.demoSeedCount > 0 ? "the demo registry " : ""}on ${running.url}\n`);

const shutdown = (signal: string) => {
  logger.info("shutting down", { signal });
  void running.close().then(() => process.exit(0));
  setTimeout(() => process.exit(0), 5000).unref();
};
process.once("SIGINT", () => shutdown("SIGINT"));
process.once("SIGTERM", () => shutdown("SIGTERM"));
