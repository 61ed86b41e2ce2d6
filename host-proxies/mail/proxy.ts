/**
 * The mail proxy of one instance: a `MailTransport` seen through a `mail.send` grant fixed at
 * creation. `send` checks the message (check.ts), holds every recipient to the grant's patterns
 * and to each policy layer (`allowRecipient`), and only then composes and sends it, under a
 * deadline: a server that accepts the connection and never answers fails the call with a clear
 * `io` error instead of holding the run.
 */
import { randomUUID } from "node:crypto";
import { InvalidInputError } from "../../runtime/errors.js";
import { HostProxyError } from "../types.js";
import { canonicalAddress, canonicalRecipientPattern, recipientMatches } from "./address.js";
import { allRecipients, checkOutgoingMail, MAX_RECIPIENTS } from "./check.js";
import { MAIL_DENIAL_REASONS, mailDenied } from "./reasons.js";
import type { CheckedMail, MailTransport, OutgoingMail, SendReceipt } from "./types.js";

export interface MailProxyOptions {
  /** The grant's recipient patterns (`*@corp.example`, `alice@corp.example`, `*@*.corp.example`). At least one. */
  recipients: readonly string[];
  /** The grant's cap on recipients per message; default (and at most) 100. */
  maxRecipients?: number | undefined;
  /** An extra check per recipient from the policy (every layer); false refuses it. */
  allowRecipient?: ((address: string) => boolean) | undefined;
  /** The whole send: connection, greeting, dialogue, token. Default 30 000 ms. */
  timeoutMs?: number | undefined;
}

/** `clawhive:host/mail` for one instance. Methods throw `HostProxyError` only. */
export interface MailProxy {
  /** The checks `send` makes, without sending: what the policy gate decides on. */
  check(mail: OutgoingMail): CheckedMail;
  send(mail: OutgoingMail): Promise<SendReceipt>;
}

/** Throws `InvalidInputError` for an empty or unreadable pattern list. */
export function createMailProxy(transport: MailTransport, options: MailProxyOptions): MailProxy {
  const patterns = options.recipients.map((p, i) => {
    const canonical = typeof p === "string" ? canonicalRecipientPattern(p) : undefined;
    if (canonical === undefined) throw new InvalidInputError(`createMailProxy: recipients[${i}]: expected local@domain, *@domain or *@*.domain`, { field: `recipients[${i}]` });
    return canonical;
  });
  if (patterns.length === 0) throw new InvalidInputError("createMailProxy: recipients: expected at least one pattern", { field: "recipients" });
  canonicalAddress(transport.from, "from");
  const max = options.maxRecipients ?? MAX_RECIPIENTS;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const check = (mail: OutgoingMail): CheckedMail => {
    const checked = checkOutgoingMail(mail);
    const all = allRecipients(checked);
    if (all.length > max) throw mailDenied(MAIL_DENIAL_REASONS.tooManyRecipients, `mail: ${all.length} recipients, the grant allows at most ${max}`);
    for (const address of all) {
      const parsed = canonicalAddress(address);
      if (!patterns.some((p) => recipientMatches(p, parsed)) || !allowed(options.allowRecipient, address)) {
        throw mailDenied(MAIL_DENIAL_REASONS.recipientNotGranted, `mail: recipient ${address} matches no granted recipient pattern`);
      }
    }
    return checked;
  };
  return Object.freeze({
    check,
    send: async (mail: OutgoingMail) => {
      const checked = check(mail);
      const messageId = `<${randomUUID()}@${canonicalAddress(transport.from).domain}>`;
      return underDeadline(timeoutMs, transport.kind, (signal) => transport.send(checked, { messageId, signal }));
    },
  });
}

function allowed(check: ((address: string) => boolean) | undefined, address: string): boolean {
  if (check === undefined) return true;
  try {
    return check(address) === true;
  } catch (err) {
    throw HostProxyError.io("mail: the policy's recipient check failed", err);
  }
}

/**
 * Runs `send` under a deadline it is told of through `signal`, and does not wait past it even
 * if the transport ignores the signal. Anything but a `HostProxyError` becomes `io`.
 */
async function underDeadline<T>(timeoutMs: number, kind: string, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(HostProxyError.io(`mail: the ${kind} server did not finish the send within ${timeoutMs} ms; nothing is known to be sent`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([send(controller.signal), late]);
  } catch (err) {
    if (err instanceof HostProxyError) throw err;
    throw HostProxyError.io(`mail: the ${kind} transport failed: ${(err as Error)?.message ?? String(err)}`.slice(0, 500), err);
  } finally {
    clearTimeout(timer);
  }
}
