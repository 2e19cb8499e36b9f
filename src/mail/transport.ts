import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import tls from "node:tls";
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
  send(mail: OutgoingMail): Promise<MailDelivery>;
  close(): void;
}

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
    const transporter = nodemailer.createTransport(smtpOptions(settings.smtp));
    return {
      kind: "smtp",
      async send(mail) {
        const info = await transporter.sendMail(message(mail));
        return { response: info.response };
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
    close: () => transporter.close(),
  };
}

const CONNECTION_TIMEOUT_MS = 30_000;

/**
 * Opens the SMTP connection with Nagle's algorithm off. Reusing pooled connections, nodemailer
 * ends each message with a small write that otherwise waits for the server's delayed ACK (about
 * 40 ms a message: 60 emails/s over three connections instead of 450 measured on loopback).
 */
function openSocket(
  options: { host?: string | undefined; port?: number | string | undefined; secure?: boolean | undefined },
  callback: (error: Error | null, socket?: { connection: net.Socket; secured?: boolean }) => void,
): void {
  const host = options.host ?? "localhost";
  const port = options.port === undefined ? (options.secure ? 465 : 587) : Number(options.port);
  const socket = options.secure
    ? tls.connect({ host, port, ...(net.isIP(host) ? {} : { servername: host }) })
    : net.connect({ host, port });
  socket.setNoDelay(true);
  const timer = setTimeout(
    () => socket.destroy(new Error(`connection to ${host}:${port} timed out`)),
    CONNECTION_TIMEOUT_MS,
  );
  const onError = (error: Error) => {
    clearTimeout(timer);
    callback(error);
  };
  socket.once("error", onError);
  socket.once(options.secure ? "secureConnect" : "connect", () => {
    clearTimeout(timer);
    socket.off("error", onError);
    callback(null, options.secure ? { connection: socket, secured: true } : { connection: socket });
  });
}

function smtpOptions(smtp: SmtpSettings): SMTPPool.Options {
  const base = {
    pool: true as const,
    maxConnections: 3,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
    getSocket: openSocket,
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
