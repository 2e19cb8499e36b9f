import type { Worker } from "node:worker_threads";
import { startTypeScriptWorker } from "../worker-thread.ts";
import type { MailThreadReply, MailThreadRequest } from "./mail-thread.ts";
import type { MailDelivery, MailTransport, OutgoingMail, TransportSettings } from "./transport.ts";

/**
 * The mail transport the outbox worker uses inside the server: the same transport (SMTP pool or
 * .eml files) run in a worker thread. Composing a MIME message and writing it out cost about as
 * much CPU as accepting the lead did; in a thread it runs on another core while the event loop
 * keeps answering requests. The outbox rows stay on this thread: claims and results are
 * written by the caller, so the database sees one writer per connection as before.
 *
 * The thread starts on the first email. If it dies, the emails in flight fail (their rows are
 * retried with backoff, delivery being at least once) and the next email starts a new thread.
 */
export function createThreadedMailTransport(settings: TransportSettings): MailTransport {
  const entry = new URL("./mail-thread.ts", import.meta.url);
  const pending = new Map<number, { resolve: (delivery: MailDelivery) => void; reject: (error: Error) => void }>();
  let thread: Worker | null = null;
  let nextId = 0;
  let outgoing: { id: number; mail: OutgoingMail }[] = [];

  const failPending = (error: Error) => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };

  const start = (): Worker => {
    const started = startTypeScriptWorker(entry, settings);
    started.on("message", (replies: MailThreadReply[]) => {
      for (const reply of replies) {
        const waiting = pending.get(reply.id);
        if (!waiting) continue;
        pending.delete(reply.id);
        if ("delivery" in reply) waiting.resolve(reply.delivery);
        else waiting.reject(Object.assign(new Error(reply.failure.message), reply.failure));
      }
      if (pending.size === 0) started.unref();
    });
    const lost = (error: Error) => {
      if (thread === started) thread = null;
      failPending(error);
    };
    started.on("error", lost);
    started.on("exit", (code) => lost(new Error(`the mail thread exited with code ${code}`)));
    return started;
  };

  return {
    kind: settings.smtp ? "smtp" : "file",
    send(mail) {
      thread ??= start();
      const id = nextId++;
      const target = thread;
      // The thread keeps the process alive only while emails are in flight; close() ends it.
      target.ref();
      const delivered = new Promise<MailDelivery>((resolve, reject) => pending.set(id, { resolve, reject }));
      // The emails of one batch (sent in the same turn) cross in one message.
      outgoing.push({ id, mail });
      if (outgoing.length === 1) {
        queueMicrotask(() => {
          const mails = outgoing;
          outgoing = [];
          target.postMessage({ mails } satisfies MailThreadRequest);
        });
      }
      return delivered;
    },
    close() {
      const closing = thread;
      thread = null;
      if (!closing) return;
      closing.postMessage({ close: true } satisfies MailThreadRequest);
      // A transport that does not close (an SMTP server that never answers QUIT) is not waited for.
      setTimeout(() => void closing.terminate(), 5_000).unref();
    },
  };
}
