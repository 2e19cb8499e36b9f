/**
 * The mail thread's entry (see threaded-transport.ts): composes and hands over emails with the
 * ordinary transport, off the thread that serves requests.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createMailTransport, type OutgoingMail, type TransportSettings } from "./transport.ts";

/** Emails cross in batches: one message per batch of the outbox rather than one per email. */
export type MailThreadRequest = { mails: { id: number; mail: OutgoingMail }[] } | { close: true };

export type MailThreadReply =
  | { id: number; delivery: { file?: string; response?: string } }
  | { id: number; failure: { message: string; code?: unknown; responseCode?: unknown; command?: unknown } };

const transport = createMailTransport(workerData as TransportSettings);

let replies: MailThreadReply[] = [];
const reply = (answer: MailThreadReply) => {
  replies.push(answer);
  // The answers of one turn of the event loop go back together.
  if (replies.length === 1) {
    setImmediate(() => {
      parentPort?.postMessage(replies);
      replies = [];
    });
  }
};

parentPort?.on("message", (request: MailThreadRequest) => {
  if ("close" in request) {
    transport.close();
    parentPort?.close();
    return;
  }
  for (const { id, mail } of request.mails) {
    transport.send(mail).then(
      (delivery) => reply({ id, delivery }),
      (failure: unknown) => {
        const error = (typeof failure === "object" && failure !== null ? failure : {}) as Record<string, unknown>;
        // The fields describeFailure and the logs read: an Error itself does not cross threads whole.
        reply({
          id,
          failure: {
            message: typeof error.message === "string" ? error.message : String(failure),
            code: error.code,
            responseCode: error.responseCode,
            command: error.command,
          },
        });
      },
    );
  }
});
