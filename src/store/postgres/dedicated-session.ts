/**
 * A connection of its own, kept open across losses: what a session-level advisory lock (the
 * leader, leader.ts) and LISTEN (notices.ts) need, since both belong to one connection and the
 * pool would hand that connection to other queries and close it when idle.
 *
 * Every `retryMs` the session runs `tick` (the leader's try for the lock, a heartbeat); a tick or a
 * connection that fails ends the session (`onLost`) and the next tick opens a new one
 * (`onConnected` again). The server ending the connection (a restart, a terminated backend) is
 * noticed at once; a network that goes, at the next tick (each query must answer within
 * `retryMs`). The session's TCP keepalives are set short so that PostgreSQL, on its side, notices a
 * machine that vanished within about `KEEPALIVE_IDLE_S + KEEPALIVE_INTERVAL_S * KEEPALIVE_COUNT`
 * seconds and frees what the session held.
 */
import type pg from "pg";
import { postgresDriver } from "./driver.ts";

const KEEPALIVE_IDLE_S = 10;
const KEEPALIVE_INTERVAL_S = 5;
const KEEPALIVE_COUNT = 3;

export interface DedicatedSessionOptions {
  /** DATABASE_URL. */
  url: string;
  /** application_name of the connection, as pg_stat_activity shows it. */
  applicationName: string;
  /** Between two ticks, and the longest any of the session's queries may take. */
  retryMs: number;
  /** A new connection is open (first, or after a loss): set it up (LISTEN...). */
  onConnected?: (client: pg.Client) => Promise<void>;
  /** Runs every retryMs while connected; throwing ends the session. */
  tick: (client: pg.Client) => Promise<void>;
  /** The connection ended or a query on it failed. */
  onLost: (reason: string) => void;
}

export interface DedicatedSession {
  /** Ends the connection and stops reconnecting. */
  stop(): Promise<void>;
}

export function startDedicatedSession(options: DedicatedSessionOptions): DedicatedSession {
  let client: pg.Client | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const lose = (reason: string) => {
    const lost = client;
    if (!lost) return;
    client = null;
    lost.end().catch(() => undefined);
    options.onLost(reason);
  };

  const connect = async (): Promise<pg.Client> => {
    const next = new (postgresDriver().Client)({
      connectionString: options.url,
      connectionTimeoutMillis: options.retryMs,
      query_timeout: options.retryMs,
      keepAlive: true,
      application_name: options.applicationName,
    });
    // Without a listener, an error on this connection (the server ended it) would end the process.
    next.on("error", (error) => {
      if (client === next) lose(error.message);
    });
    next.on("end", () => {
      if (client === next) lose("connection ended");
    });
    try {
      await next.connect();
      await next.query(
        `SET tcp_keepalives_idle = ${KEEPALIVE_IDLE_S}; SET tcp_keepalives_interval = ${KEEPALIVE_INTERVAL_S}; SET tcp_keepalives_count = ${KEEPALIVE_COUNT}`,
      );
      return next;
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
  };

  const attempt = async () => {
    try {
      if (!client) {
        const opened = await connect();
        if (stopped) {
          await opened.end().catch(() => undefined);
          return;
        }
        client = opened;
        await options.onConnected?.(opened);
      }
      if (client && !stopped) await options.tick(client);
    } catch (error) {
      lose(error instanceof Error ? error.message : String(error));
    }
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = attempt().finally(() => {
        running = null;
        schedule(options.retryMs);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(0);

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      lose("stopped");
    },
  };
}
