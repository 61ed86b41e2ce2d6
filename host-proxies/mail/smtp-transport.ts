/**
 * Sending over SMTP with nodemailer: one connection per message (no pool: a run's sends are
 * few, and a pooled connection would outlive the grant that opened it). The envelope is given
 * explicitly — MAIL FROM the configured sender, RCPT TO exactly the checked recipients — so no
 * header of the message can add a recipient. Every phase has its own timeout below the proxy's
 * deadline, and the deadline's signal closes the connection.
 */
import nodemailer from "nodemailer";
import { InvalidInputError } from "../../runtime/errors.js";
import { HostProxyError } from "../types.js";
import { allRecipients } from "./check.js";
import { composeMail } from "./compose.js";
import type { CheckedMail, MailTransport, SendReceipt } from "./types.js";

export interface SmtpTransportOptions {
  host: string;
  /** Default 587 (submission, STARTTLS), or 465 when `secure`. */
  port?: number;
  /** TLS from the first byte (port 465). Default: false, upgraded with STARTTLS when offered. */
  secure?: boolean;
  /** Refuse to send unless the connection is upgraded with STARTTLS. Default true unless `secure`, or the host is loopback. */
  requireTls?: boolean;
  /** The sender: From and MAIL FROM. */
  from: string;
  /** Login; the password is read per send from the secret store, on the main thread. */
  auth?: { user: string; password: () => Promise<string> };
  /** Per phase (connect, greeting, each reply). Default 10 000 ms. */
  phaseTimeoutMs?: number;
  /** Extra trust anchors (a private CA). */
  ca?: string | Buffer;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export class SmtpTransport implements MailTransport {
  readonly kind = "smtp";
  readonly from: string;
  readonly #options: SmtpTransportOptions;

  constructor(options: SmtpTransportOptions) {
    if (typeof options.host !== "string" || options.host === "") throw new InvalidInputError("SmtpTransport: host: expected a host name", { field: "host" });
    const port = options.port ?? (options.secure ? 465 : 587);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidInputError("SmtpTransport: port: expected 1 to 65535", { field: "port" });
    this.from = options.from;
    this.#options = { ...options, port };
  }

  async send(mail: CheckedMail, options: { messageId: string; signal: AbortSignal }): Promise<SendReceipt> {
    const o = this.#options;
    const phase = o.phaseTimeoutMs ?? 10_000;
    const raw = await composeMail(mail, { from: this.from, messageId: options.messageId, keepBcc: false });
    const pass = o.auth === undefined ? undefined : await o.auth.password();
    const transport = nodemailer.createTransport({
      host: o.host,
      port: o.port,
      secure: o.secure === true,
      requireTLS: o.requireTls ?? (o.secure !== true && !LOOPBACK.has(o.host)),
      ignoreTLS: false,
      ...(o.auth === undefined ? {} : { auth: { user: o.auth.user, pass } }),
      connectionTimeout: phase,
      greetingTimeout: phase,
      socketTimeout: phase,
      dnsTimeout: phase,
      disableFileAccess: true,
      disableUrlAccess: true,
      ...(o.ca === undefined ? {} : { tls: { ca: o.ca } }),
    });
    const close = () => transport.close();
    options.signal.addEventListener("abort", close, { once: true });
    try {
      const info = await transport.sendMail({ envelope: { from: this.from, to: allRecipients(mail) }, raw });
      return { messageId: options.messageId, accepted: info.accepted.map(String), transportId: String(info.response ?? "").slice(0, 200) };
    } catch (err) {
      throw smtpError(err, `${o.host}:${o.port}`);
    } finally {
      options.signal.removeEventListener("abort", close);
      transport.close();
    }
  }
}

/** nodemailer's error codes, said so a person knows what to fix. The server's reply is kept (it names the cause). */
function smtpError(err: unknown, where: string): HostProxyError {
  const e = err as { code?: string; response?: string; message?: string };
  const reply = typeof e.response === "string" ? `: ${e.response.slice(0, 300)}` : "";
  switch (e.code) {
    case "ETIMEDOUT":
    case "ESOCKET":
    case "ECONNECTION":
    case "EDNS":
      return HostProxyError.io(`mail: the SMTP server ${where} could not be reached or did not answer in time (${e.code}: ${(e.message ?? "").slice(0, 200)})`, err);
    case "EAUTH":
    case "ENOAUTH":
      return HostProxyError.io(`mail: the SMTP server ${where} refused the login${reply}`, err);
    case "EENVELOPE":
      return HostProxyError.io(`mail: the SMTP server ${where} refused the sender or every recipient${reply}`, err);
    case "ETLS":
      return HostProxyError.io(`mail: the SMTP server ${where} did not offer a usable TLS connection${reply}`, err);
    default:
      return HostProxyError.io(`mail: the SMTP server ${where} failed the send${reply || `: ${(e.message ?? String(err)).slice(0, 200)}`}`, err);
  }
}
