/**
 * The mail thread's entry (see threaded-transport.ts): composes and hands over emails with the
 * ordinary transport, off the thread that serves requests.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createMailTransport, type OutgoingMail, type TransportSettings } from "./transport.ts";

export type MailThreadRequest = { id: number; mail: OutgoingMail } | { close: true };

export type MailThreadReply =
  | { id: number; delivery: { file?: string; response?: string } }
  | { id: number; failure: { message: string; code?: unknown; responseCode?: unknown; command?: unknown } };

const transport = createMailTransport(workerData as TransportSettings);

parentPort?.on("message", (request: MailThreadRequest) => {
  if ("close" in request) {
    transport.close();
    parentPort?.close();
    return;
  }
  transport.send(request.mail).then(
    (delivery) => parentPort?.postMessage({ id: request.id, delivery } satisfies MailThreadReply),
    (failure: unknown) => {
      const error = (typeof failure === "object" && failure !== null ? failure : {}) as Record<string, unknown>;
      // The fields describeFailure and the logs read: an Error itself does not cross threads whole.
      const reply: MailThreadReply = {
        id: request.id,
        failure: {
          message: typeof error.message === "string" ? error.message : String(failure),
          code: error.code,
          responseCode: error.responseCode,
          command: error.command,
        },
      };
      parentPort?.postMessage(reply);
    },
  );
});
