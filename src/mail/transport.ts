import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";
import type SMTPPool from "nodemailer/lib/smtp-pool/index.js";
import type { SmtpSettings } from "../config/config.ts";

/** One email as the outbox hands it to a transport. */
export interface OutgoingMail {
  /** The outbox message id: it makes the Message-ID and the .eml file name, stable across retries. */
  outboxId: string;
  /** Sorts .eml files by time and kind, e.g. 20261122T072058Z-lead_notification. */
  fileStem: string;
  to: string;
  /** The person who wrote: the recipient's "Reply" goes straight to them. */
  replyTo?: { name: string; address: string } | undefined;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

export interface MailDelivery {
  /** The file written, for the file transport. */
  file?: string;
  response?: string;
}

export interface MailTransport {
  readonly kind: "smtp" | "file";
  /** Settles within the transport's send timeout whatever the server does. */
  send(mail: OutgoingMail): Promise<MailDelivery>;
  /**
   * Drops every connection, those delivering a message included (their sends fail), and starts
   * afresh: for a worker that gave up waiting on a batch and must not inherit wedged connections.
   */
  reset(): void;
  close(): void;
}

/** A send given up by the transport's timeout; the outbox retries it like any SMTP failure. */
export class SendTimeout extends Error {
  readonly code = "ETIMEDOUT";
}

/**
 * How long one SMTP send may take, from the call to the server's last reply, waiting for a pooled
 * connection included. Nodemailer's own timeouts cover connecting, the greeting and a silent
 * socket, not a server that trickles its replies, nor a pool that never hands the message a
 * connection: without this bound such a send never settles and holds its outbox batch forever.
 * Two minutes leave a slow server time for a full batch over the pool (25 messages on three
 * connections) and stay well inside the 5-minute claim lease, so a row is never sent twice at once.
 */
export const DEFAULT_SEND_TIMEOUT_MS = 120_000;

export interface TransportSettings {
  smtp: SmtpSettings | null;
  from: string;
  /** Where the file transport writes (DATA_DIR/outbox). */
  outboxDir: string;
}

/**
 * SMTP through nodemailer when SMTP settings are given (a small connection pool, bounded
 * timeouts), otherwise RFC 822 .eml files under DATA_DIR/outbox/ written by nodemailer's stream
 * transport: a demo shows every email the service would have sent, and writing the file counts as
 * delivered.
 */
export function createMailTransport(
  settings: TransportSettings,
  options: {
    /**
     * Write .eml files with blocking calls: for a thread that does nothing else (mail-thread.ts),
     * where four thread-pool round trips per file cost more than the writes themselves.
     */
    blockingFiles?: boolean;
    /** SMTP only: see DEFAULT_SEND_TIMEOUT_MS. */
    sendTimeoutMs?: number;
  } = {},
): MailTransport {
  const domain = /@([^>\s]+)>?\s*$/.exec(settings.from)?.[1] ?? "abeille.local";
  const message = (mail: OutgoingMail) => ({
    from: settings.from,
    to: mail.to,
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: `<${mail.outboxId}@${domain}>`,
    // French text is mostly ASCII: quoted-printable keeps it readable, and naming it skips a scan.
    textEncoding: "quoted-printable" as const,
    headers: { "Auto-Submitted": "auto-generated", ...(mail.headers ?? {}) },
  });

  if (settings.smtp) {
    const pool = smtpOptions(settings.smtp);
    const sendTimeoutMs = options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
    let transporter = nodemailer.createTransport(pool);
    return {
      kind: "smtp",
      async send(mail) {
        // The signal makes nodemailer take the message off its queue, or close the connection
        // delivering it (freeing the pool slot); the race settles the send even if it did not.
        const abort = new AbortController();
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            const failure = new SendTimeout(`SMTP send timed out after ${sendTimeoutMs} ms`);
            reject(failure); // first, so that the race reports the timeout rather than the abort
            abort.abort(failure);
          }, sendTimeoutMs);
        });
        try {
          const info = await Promise.race([transporter.sendMail({ ...message(mail), signal: abort.signal }), expired]);
          return { response: info.response };
        } finally {
          clearTimeout(timer);
        }
      },
      reset() {
        const wedged = transporter;
        transporter = nodemailer.createTransport(pool);
        wedged.close({ force: true });
      },
      close: () => transporter.close(),
    };
  }

  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true });
  let directory: Promise<unknown> | null = null;
  let directoryMade = false;
  return {
    kind: "file",
    async send(mail) {
      const info = await transporter.sendMail(message(mail));
      const bytes = info.message as Buffer;
      const file = path.join(settings.outboxDir, `${mail.fileStem}-${mail.outboxId}.eml`);
      const temporary = `${file}.${process.pid}.tmp`;
      if (options.blockingFiles) {
        if (!directoryMade) {
          mkdirSync(settings.outboxDir, { recursive: true, mode: 0o700 });
          directoryMade = true;
        }
        writeFileSync(temporary, bytes, { mode: 0o600 });
        renameSync(temporary, file);
        return { file };
      }
      // Asynchronous file system calls: a transport inside the server never blocks request handling.
      directory ??= mkdir(settings.outboxDir, { recursive: true, mode: 0o700 }).catch((failure: unknown) => {
        directory = null;
        throw failure;
      });
      await directory;
      await writeFile(temporary, bytes, { mode: 0o600 });
      await rename(temporary, file);
      return { file };
    },
    // Nothing is held between files.
    reset: () => undefined,
    close: () => transporter.close(),
  };
}

const CONNECTION_TIMEOUT_MS = 30_000;

function smtpOptions(smtp: SmtpSettings): SMTPPool.Options {
  const base = {
    pool: true as const,
    maxConnections: 3,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
    // No getSocket of our own any more: nodemailer 10 turns Nagle's algorithm off itself (the
    // reason we opened sockets ourselves) and also brings its DNS handling and TLS options.
  };
  if ("url" in smtp) {
    const url = new URL(smtp.url);
    const secure = url.protocol === "smtps:";
    return {
      ...base,
      host: url.hostname,
      port: url.port ? Number(url.port) : secure ? 465 : 587,
      secure,
      ...(url.username
        ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
        : {}),
      ...(url.searchParams.get("ignoreTLS") === "true" ? { ignoreTLS: true } : {}),
    };
  }
  return {
    ...base,
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.pass ?? "" } } : {}),
  };
}
