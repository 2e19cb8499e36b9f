/**
 * The fence of the work done once across the deployment (docs/several-machines.md, "Background
 * work runs once across the deployment"): the retention schedule, the search card keeper,
 * Meilisearch's follower and the scheduled refresh write only while their instance leads.
 *
 * The leader's jobs write through one fence per process (openPostgresStore makes it; the server's
 * background work makes it follow its election, jobs/background.ts). Each write transaction:
 *
 * - takes the leader's fence lock shared (pg_advisory_xact_lock_shared, held to its end): a new
 *   leader takes it exclusively once before it leads (leader.ts), so it starts only once every
 *   write the deposed leader began has ended;
 * - checks, first and again just before COMMIT, that the leader's lock is still held by the
 *   connection that took it for this term (pg_locks): a leader whose connection ended (its process
 *   or network gone, the server restarted, the backend terminated) lost the lock with it, and its
 *   pending writes are rolled back instead of committed (LeadershipLost);
 * - ends the session if it stays idle in the transaction past LEADER_FENCE_IDLE_S (a process that
 *   vanished mid-write frees the fence within that, not after the TCP keepalives' hours).
 *
 * A write outside PostgreSQL (Meilisearch's, which cannot check a token) is made while holding the
 * fence (`hold`): it is sent only while this instance leads, and before any write of the next
 * leader, whose own writes Meilisearch then applies after it (tasks run in the order they came).
 *
 * Until `follow` is called the fence lets everything through as plain transactions: an operator's
 * command (`npm run retention`, `npm run search`) is not the leader's work, nor is SQLite's one
 * machine.
 */
import type pg from "pg";
import { advisoryLockHeldBy, fenceLockKey, LOCK_CLASS } from "./leader.ts";
import type { LeaderTerm } from "./leader-term.ts";
import { inTransaction } from "./transaction.ts";

/** How long a fenced transaction may stay idle before the server ends its session (seconds). */
export const LEADER_FENCE_IDLE_S = 60;

/** The instance no longer leads (or never did): the write was not made, or was rolled back. */
export class LeadershipLost extends Error {
  override name = "LeadershipLost";
}

export interface LeaderFence {
  /** Runs `work` in one transaction on the pool, committed only while this instance leads. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Runs `work` (a write outside PostgreSQL) while holding the fence: only while this instance leads. */
  hold<T>(work: () => Promise<T>): Promise<T>;
  /** From now on, writes are fenced with the term `term` answers (null while not leading: refused). */
  follow(term: () => LeaderTerm | null): void;
}

export function createLeaderFence(pool: pg.Pool): LeaderFence {
  let termOf: (() => LeaderTerm | null) | null = null;

  const stillLeads = async (client: pg.PoolClient, term: LeaderTerm) => {
    if (!(await advisoryLockHeldBy(client, term.name, term.pid))) {
      throw new LeadershipLost(
        `this instance no longer leads the deployment's ${term.name} work (its leader connection ended): the write was refused`,
      );
    }
  };

  const transaction = <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    if (!termOf) return inTransaction(pool, work);
    const term = termOf();
    if (!term) return Promise.reject(new LeadershipLost("this instance does not lead: the write was refused"));
    return inTransaction(pool, async (client) => {
      await client.query(`SET LOCAL idle_in_transaction_session_timeout = '${LEADER_FENCE_IDLE_S}s'`);
      await client.query("SELECT pg_advisory_xact_lock_shared($1, $2)", [LOCK_CLASS, fenceLockKey(term.name)]);
      await stillLeads(client, term);
      const result = await work(client);
      await stillLeads(client, term);
      return result;
    });
  };

  return {
    transaction,
    hold: (work) => transaction(() => work()),
    follow(term) {
      termOf = term;
    },
  };
}
