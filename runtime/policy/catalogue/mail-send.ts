/**
 * `mail.send`: to whom an agent may send mail. `recipients` are patterns over bare addresses
 * (`alice@corp.example`, `*@corp.example`, `*@*.corp.example`; host-proxies/mail/address.ts),
 * domains compared as IDNA A-labels, whole labels only, so a lookalike domain matches nothing.
 * Every recipient of a message (To, Cc and Bcc) must match in every layer; this is decided on the
 * ToolCall's arguments before a person is asked to approve it, and again at the host call.
 */
import * as v from "valibot";
import { canonicalRecipientPattern, recipientMatches, recipientPatternCovers } from "../../../host-proxies/mail/address.js";
import { canonicalAddress } from "../../../host-proxies/mail/address.js";
import { MAX_RECIPIENTS } from "../../../host-proxies/mail/check.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { strictObject } from "./strict.js";
import { unique } from "./names.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, COVERED, deny, firstUncovered, notCovered } from "./types.js";

const RecipientPatternSchema = v.pipe(
  v.string(),
  v.check((p) => canonicalRecipientPattern(p) === p, "expected local@domain, *@domain or *@*.domain, the domain in lower case A-labels (xn--… for a non-ASCII name)"),
);

const MailSendResourceSchema = strictObject({
  recipients: v.pipe(
    v.array(RecipientPatternSchema),
    v.minLength(1, "expected at least one recipient pattern"),
    v.check((items) => unique(items), "recipient patterns must be unique"),
    v.description("who may receive: alice@corp.example, *@corp.example, *@*.corp.example"),
  ),
  max_recipients: v.pipe(
    v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_RECIPIENTS))),
    v.description(`at most this many recipients per message (To, Cc and Bcc together); default ${MAX_RECIPIENTS}`),
  ),
});
export type MailSendResource = v.InferOutput<typeof MailSendResourceSchema>;

/** Every recipient of one message, canonical (host-proxies/mail/check.ts). */
export interface MailSendRequest {
  recipients: string[];
}

function mailSendCovers(outer: MailSendResource, inner: MailSendResource): Coverage {
  return firstUncovered(
    () => {
      const i = inner.recipients.findIndex((p) => !outer.recipients.some((o) => recipientPatternCovers(o, p)));
      return i < 0 ? COVERED : notCovered(`recipients[${i}]`, `${inner.recipients[i]} is not within ${outer.recipients.join(", ")}`);
    },
    () => {
      const outerMax = outer.max_recipients ?? MAX_RECIPIENTS;
      return (inner.max_recipients ?? MAX_RECIPIENTS) <= outerMax ? COVERED : notCovered("max_recipients", `above the outer grant's ${outerMax}`);
    },
  );
}

function mailSendMatches(grant: MailSendResource, request: MailSendRequest): Decision {
  const max = grant.max_recipients ?? MAX_RECIPIENTS;
  if (request.recipients.length > max) return deny("mail.send", "too-many-recipients", `${request.recipients.length} recipients; at most ${max} are granted`);
  for (const recipient of request.recipients) {
    let address;
    try {
      address = canonicalAddress(recipient, "recipient");
    } catch (error) {
      if (error instanceof HostProxyError && error.hostError.tag === "invalid-input") return deny("mail.send", "invalid-input", error.hostError.val);
      throw error;
    }
    if (!grant.recipients.some((p) => recipientMatches(p, address))) {
      return deny("mail.send", "recipient-not-granted", `recipient ${address.address} matches no granted recipient pattern (${grant.recipients.join(", ")})`);
    }
  }
  return ALLOW;
}

export const mailSend: CapabilityEntry<MailSendResource, MailSendRequest> = {
  name: "mail.send",
  description: "Send plain-text mail to granted recipients, over SMTP or the Gmail API.",
  resource: MailSendResourceSchema,
  defaultRisk: "guarded",
  riskReason: "a sent message cannot be taken back (DESIGN: writes Guarded); the approval shows recipients, subject and body",
  covers: mailSendCovers,
  matches: mailSendMatches,
};
