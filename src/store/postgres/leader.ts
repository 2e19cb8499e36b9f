/**
 * One leader across the deployment (docs/several-machines.md): the instance that holds a
 * session-level advisory lock on its own connection runs the scheduled work; the others try again
 * every `retryMs`. When the leader's process or machine dies, its connection ends, PostgreSQL
 * releases the lock, and another instance takes it at its next try.
 *
 * Why a dedicated connection and not the pool: a session-level lock belongs to one connection;
 * the pool would hand that connection to other queries and close it when idle.
 *
 * The leader learns it lost the lock when its connection does: at once when the server ends it
 * (a restart, a terminated backend), or at the next heartbeat (every `retryMs`, a query that must
 * answer within `retryMs`) when the network goes. The session's TCP keepalives are set short so
 * that PostgreSQL, on its side, notices a leader machine that vanished within about
 * `KEEPALIVE_IDLE_S + KEEPALIVE_INTERVAL_S * KEEPALIVE_COUNT` seconds and releases its lock.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { logger } from "../../logging.ts";

const KEEPALIVE_IDLE_S = 10;
const KEEPALIVE_INTERVAL_S = 5;
const KEEPALIVE_COUNT = 3;
/** The first key of every Abeille advisory lock ('abei'), the second names what is locked. */
const LOCK_CLASS = 0x61626569;

export interface LeaderElectionOptions {
  /** DATABASE_URL. */
  url: string;
  /** What the leader leads ("scheduler"): one lock per name. */
  name: string;
  /** Between two tries of a follower, and between two heartbeats of the leader. Default 5 s. */
  retryMs?: number;
  /** Called when this instance becomes the leader. */
  onGained?: () => void;
  /** Called when it stops being the leader (lost connection, heartbeat failed, stop()). */
  onLost?: () => void;
  /** application_name of the connection, as pg_stat_activity shows it. */
  applicationName?: string;
}

export interface LeaderElection {
  isLeader(): boolean;
  /** Gives the lock up (the connection ends) and stops trying. */
  stop(): Promise<void>;
}

/** The advisory lock's second key for a name: the first 4 bytes of its SHA-256, as a signed int4. */
export function leaderLockKey(name: string): number {
  return createHash("sha256").update(`abeille:${name}`).digest().readInt32BE(0);
}

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const retryMs = options.retryMs ?? 5_000;
  const key = leaderLockKey(options.name);
  let client: pg.Client | null = null;
  let leader = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const gain = () => {
    leader = true;
    logger.info("this instance leads", { lock: options.name });
    options.onGained?.();
  };
  const lose = (reason: string) => {
    if (leader) {
      leader = false;
      logger.warn("this instance no longer leads", { lock: options.name, reason });
      options.onLost?.();
    }
    const lost = client;
    client = null;
    lost?.end().catch(() => undefined);
  };

  const connect = async (): Promise<pg.Client> => {
    const next = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: retryMs,
      query_timeout: retryMs,
      keepAlive: true,
      application_name: options.applicationName ?? `abeille-leader-${options.name}`,
    });
    // An error on this connection (the server ended it) ends the leadership at once; without a
    // listener it would end the process.
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
      if (!client) client = await connect();
      const current = client;
      if (leader) {
        await current.query("SELECT 1");
      } else {
        const result = await current.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS locked", [
          LOCK_CLASS,
          key,
        ]);
        if (stopped || client !== current) return;
        if (result.rows[0]?.locked) gain();
      }
    } catch (error) {
      lose(error instanceof Error ? error.message : String(error));
    }
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = attempt().finally(() => {
        running = null;
        schedule(retryMs);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(0);

  return {
    isLeader: () => leader,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      lose("stopped");
    },
  };
}
