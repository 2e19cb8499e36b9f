/**
 * One leadership of the deployment's scheduled work (leader.ts), as its jobs are fenced with it
 * (leader-fence.ts): the lock's name and the backend of the connection that holds it. The
 * scheduled refresh, a process of its own, is given it in its environment. No driver here: the
 * server on SQLite imports this module.
 */

export interface LeaderTerm {
  name: string;
  pid: number;
}

/** The environment variable a leader's child process (the scheduled refresh) reads its term from. */
export const LEADER_TERM_ENV = "ABEILLE_LEADER_TERM";

export function formatLeaderTerm(term: LeaderTerm): string {
  return `${term.pid}:${term.name}`;
}

/** The term in the environment, or null (a refresh run by hand is not the leader's work). */
export function leaderTermOf(env: NodeJS.ProcessEnv): LeaderTerm | null {
  const match = /^(\d+):(.+)$/.exec(env[LEADER_TERM_ENV] ?? "");
  return match ? { pid: Number(match[1]), name: match[2] as string } : null;
}
