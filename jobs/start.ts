/**
 * `npm start`: apply migrations, seed the demo registry when the database is empty, serve, and run
 * the server's background work: the lead outbox worker (in a thread of its own), the retention schedule and the
 * publication schedule. (package.json builds the bundle first.)
 */
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config/config.ts";
import { logger } from "../src/logging.ts";
import { startOutboxThread } from "../src/mail/outbox-thread.ts";
import { startRetentionSchedule } from "./retention.ts";
import { startScheduler } from "./scheduler.ts";
import { seedIfEmpty } from "./seed.ts";
import { startServer } from "./serve.ts";

const config = loadConfig();
await seedIfEmpty(config);
const running = await startServer({ port: config.port, host: config.host });
// The jobs' own services (a second connection to the same WAL database): the Astro bundle holds its own.
const app = createApp(config);
const worker = config.outboxWorker === "inprocess" ? startOutboxThread(config) : null;
const retention = startRetentionSchedule(app);
const scheduler = startScheduler(config);
logger.info("listening", { url: running.url, base_url: config.baseUrl, data_dir: config.dataDir });
process.stdout.write(`Abeille is serving ${config.demoSeedCount > 0 ? "the demo registry " : ""}on ${running.url}\n`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info("shutting down", { signal });
  setTimeout(() => process.exit(0), 10_000).unref();
  await running.close();
  retention.stop();
  await Promise.allSettled([worker?.stop(), scheduler.stop()]);
  app.close();
  process.exit(0);
};
process.once("SIGINT", () => void shutdown("SIGINT"));
process.once("SIGTERM", () => void shutdown("SIGTERM"));
