/**
 * Notices from the database to every instance (docs/several-machines.md): a dedicated connection
 * (dedicated-session.ts) LISTENs on the given channels and hands each NOTIFY to `onNotice`.
 *
 * A notice sent while the connection was down is lost: `onListening(false)` says so at once, and
 * `onListening(true)` once listening again, after which the caller reads afresh what it follows
 * (its copy may have missed a move meanwhile). While not listening, a caller that must stay
 * correct reads from the database instead of trusting its copy.
 */
import { startDedicatedSession } from "./dedicated-session.ts";

/** A channel name as LISTEN takes it unquoted: lower-case letters, digits and underscores. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

export interface NoticeListenerOptions {
  url: string;
  channels: string[];
  onNotice: (channel: string, payload: string) => void;
  onListening?: (listening: boolean) => void;
  /** Between two heartbeats, and between two tries to reconnect. Default 5 s. */
  retryMs?: number;
  applicationName?: string;
}

export interface NoticeListener {
  listening(): boolean;
  stop(): Promise<void>;
}

export function listenForNotices(options: NoticeListenerOptions): NoticeListener {
  for (const channel of options.channels) {
    if (!CHANNEL.test(channel)) throw new Error(`notice channel ${channel} must match ${CHANNEL}`);
  }
  let listening = false;
  const session = startDedicatedSession({
    url: options.url,
    applicationName: options.applicationName ?? "abeille-notices",
    retryMs: options.retryMs ?? 5_000,
    onConnected: async (client) => {
      client.on("notification", (message) => options.onNotice(message.channel, message.payload ?? ""));
      await client.query(options.channels.map((channel) => `LISTEN ${channel}`).join("; "));
      listening = true;
      options.onListening?.(true);
    },
    tick: async (client) => {
      await client.query("SELECT 1");
    },
    onLost: () => {
      if (!listening) return;
      listening = false;
      options.onListening?.(false);
    },
  });
  return { listening: () => listening, stop: () => session.stop() };
}
