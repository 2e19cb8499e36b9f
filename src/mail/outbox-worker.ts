import type { App } from "../app.ts";
import { signInLinkMail } from "../domain/merchant-space/sign-in-links.ts";
import { logger } from "../logging.ts";
import { BatchStalled, type DispatchDeps, type DispatchReport, drainOutbox } from "./dispatch-outbox.ts";
import { outboxSignal } from "./outbox-signal.ts";
import { createMailTransport, DEFAULT_SEND_TIMEOUT_MS, type MailTransport } from "./transport.ts";

const NUDGE_DELAY_MS = 50;

/**
 * The drain's watchdog: a batch still unsettled a minute after its sends should all have timed
 * out is given up, so that a wedge nobody foresaw delays mail by minutes instead of stopping it
 * until a restart. Below the 5-minute claim lease.
 */
export const DEFAULT_BATCH_TIMEOUT_MS = DEFAULT_SEND_TIMEOUT_MS + 60_000;

export interface OutboxWorker {
  /** Runs a drain now (or waits for the one running) and returns what it did. */
  runNow(): Promise<DispatchReport>;
  /**
   * Stops polling, lets the batch in progress finish (at most `timeoutMs`, default 10 s; a row
   * left claimed is taken again once its lease is over), closes the transport.
   */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

export interface OutboxWorkerOptions {
  transport?: MailTransport;
  /** Poll interval; defaults to OUTBOX_POLL_MS (2 s). */
  pollMs?: number;
  now?: () => Date;
  /** See DEFAULT_BATCH_TIMEOUT_MS; keep it above the transport's send timeout. */
  batchTimeoutMs?: number;
}

/** What the outbox worker uses of the app: the outbox thread builds no more than this. */
export type OutboxServices = Pick<
  App,
  | "outbox"
  | "leads"
  | "platformContacts"
  | "leadEmailConfirmations"
  | "leadEmailTokens"
  | "spaceNotices"
  | "config"
  | "now"
> &
  Partial<Pick<App, "signInLinks" | "signInLinkTokens">>;

export function dispatchDeps(app: OutboxServices, transport: MailTransport, now: () => Date = app.now): DispatchDeps {
  return {
    outbox: app.outbox,
    leads: app.leads,
    platformContacts: app.platformContacts,
    transport,
    platformTeamEmail: app.config.mail.platformTeamEmail,
    ...signInLinkMailOf(app, now),
    leadEmailConfirmations: app.leadEmailConfirmations,
    leadEmailTokens: app.leadEmailTokens,
    spaceNotices: app.spaceNotices,
    baseUrl: app.config.baseUrl,
    leaseMs: app.config.outboxLeaseMs,
    // Several machines: a machine that dies leaves as few sent-but-unrecorded emails as it can.
    settleEach: app.config.postgres !== null,
    now,
  };
}

/** The emails of the merchant space's sign-in links, when the services have their store and keys. */
function signInLinkMailOf(app: OutboxServices, now: () => Date): Pick<DispatchDeps, "signInLinkMail"> {
  const { signInLinks, signInLinkTokens } = app;
  if (!signInLinks || !signInLinkTokens) return {};
  const deps = { links: signInLinks, linkTokens: signInLinkTokens, now, baseUrl: app.config.baseUrl };
  return { signInLinkMail: (linkId) => signInLinkMail(deps, linkId) };
}

/**
 * The outbox worker for a server process: drains due rows every poll interval and at once when a
 * commit in this process wrote rows (the nudge). One drain at a time per worker; several workers
 * (processes) can run, their claims never overlap.
 */
export function startOutboxWorker(app: OutboxServices, options: OutboxWorkerOptions = {}): OutboxWorker {
  const transport = options.transport ?? createMailTransport(app.config.mail);
  const deps = dispatchDeps(app, transport, options.now ?? app.now);
  const pollMs = options.pollMs ?? app.config.outboxPollMs;
  const batchTimeoutMs = options.batchTimeoutMs ?? DEFAULT_BATCH_TIMEOUT_MS;
  let current: Promise<DispatchReport> | null = null;
  let again = false;
  let stopped = false;
  let pending: NodeJS.Timeout | null = null;

  const run = (): Promise<DispatchReport> => {
    if (current) {
      again = true;
      return current;
    }
    current = (async () => {
      const total: DispatchReport = { claimed: 0, sent: 0, retried: 0, failed: 0 };
      do {
        again = false;
        try {
          const report = await drainOutbox(deps, { keepGoing: () => !stopped, batchTimeoutMs });
          total.claimed += report.claimed;
          total.sent += report.sent;
          total.retried += report.retried;
          total.failed += report.failed;
        } catch (failure) {
          if (failure instanceof BatchStalled) {
            // The next drain starts on fresh connections; the stalled batch's sends fail (force
            // close) and are retried, or its rows are claimed again once their lease is over.
            logger.error("outbox batch stalled; connections reset", { timeout_ms: batchTimeoutMs });
            transport.reset();
          } else {
            logger.error("outbox drain failed", {
              error: failure instanceof Error ? failure.name : "unknown",
              code: (failure as { code?: unknown } | null)?.code ?? null,
            });
          }
        }
      } while (again && !stopped);
      return total;
    })().finally(() => {
      current = null;
    });
    return current;
  };

  // A nudge runs a drain shortly after the commit: a burst of leads gathers into a few batches
  // instead of one drain per lead competing with request handling.
  const nudge = () => {
    if (stopped || pending) return;
    pending = setTimeout(() => {
      pending = null;
      void run();
    }, NUDGE_DELAY_MS);
  };
  // A process killed in the middle of a batch left its rows claimed: they go out now rather than
  // after their lease (a row another live worker is sending is left to it).
  // Not awaited: a drain that runs meanwhile only leaves those rows to the next one.
  void app.outbox.reclaimFromDeadClaimers((options.now ?? app.now)().toISOString()).then(
    (reclaimed) => {
      if (reclaimed > 0) logger.warn("outbox rows of a stopped process reclaimed", { rows: reclaimed });
    },
    (failure: unknown) =>
      logger.error("outbox rows of stopped processes could not be reclaimed", {
        error: failure instanceof Error ? failure.message : String(failure),
      }),
  );
  const timer = setInterval(() => void run(), pollMs);
  timer.unref();
  outboxSignal().on("written", nudge);
  nudge();
  logger.info("outbox worker started", { transport: transport.kind, poll_ms: pollMs });

  return {
    runNow: () => run(),
    async stop({ timeoutMs = 10_000 } = {}) {
      stopped = true;
      clearInterval(timer);
      if (pending) clearTimeout(pending);
      outboxSignal().off("written", nudge);
      if (current) {
        let timeout: NodeJS.Timeout | undefined;
        const expired = new Promise<void>((resolve) => {
          timeout = setTimeout(() => {
            logger.warn("outbox worker stopped with a batch still in flight");
            resolve();
          }, timeoutMs);
        });
        await Promise.race([current.then(() => undefined), expired]);
        clearTimeout(timeout);
      }
      transport.close();
    },
  };
}
